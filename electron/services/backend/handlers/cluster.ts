// cluster/* channels: stored clusters, detection and pre-flight over ssh, the DeepSpeed launch preview.
import { createClusterService } from '../../cluster';
import { enginePath } from '../../resources';
import { createSettingsService } from '../../settings';
import type { BackendContext } from '../context';
import { baseDataDir } from '../data-dir';
import type { HandlerMap } from '../handler-types';

type ClusterChannels =
  | 'cluster/list'
  | 'cluster/save'
  | 'cluster/delete'
  | 'cluster/detect'
  | 'cluster/preflight'
  | 'cluster/launch-preview'
  | 'cluster/assumptions'
  | 'cluster/stage';

export function clusterHandlers(ctx: BackendContext): HandlerMap<ClusterChannels> {
  const settings = createSettingsService({ dataDir: ctx.dataDir, defaultDataDir: baseDataDir() });
  const service = createClusterService({
    dataDir: ctx.dataDir,
    bundledEngineDir: enginePath(),
    // The head runs the launcher with the interpreter chosen in Settings; without one, the first host's.
    headPython: (cluster) => settings.get().settings.pythonPath ?? cluster.hosts[0].pythonPath,
  });
  return {
    'cluster/list': () => ({ clusters: service.list() }),
    'cluster/save': (cluster) => service.save(cluster),
    'cluster/delete': ({ name }) => ({ deleted: service.remove(name) }),
    'cluster/detect': async ({ name }) => ({ hosts: await service.detect(name) }),
    'cluster/preflight': async ({ name }) => {
      const rows = await service.preflight(name);
      return { ok: rows.every((r) => r.ok), rows };
    },
    'cluster/launch-preview': ({ name, specPath }) => service.prepareMultiNodeLaunch(name, specPath ?? '/path/to/spec.json'),
    'cluster/assumptions': ({ name }) => service.assumptions(name),
    'cluster/stage': ({ name }) => service.stageEngine(name),
  };
}
