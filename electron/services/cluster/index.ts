// Cluster service: stored cluster definitions, DeepSpeed hostfile + launch argument vector,
// hardware detection and pre-flight over ssh. Multi-node runs use DeepSpeed's own launcher (pdsh);
// the engine service spawns what `prepareMultiNodeLaunch` returns.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ABSOLUTE_PATH_PATTERN, ApiError, type Cluster, type ClusterRecord, type HostDetection, type Launch, type PreflightRow } from '../../contract';
import { clusterAssumptions } from './assumptions';
import { detectHosts } from './detect';
import { buildMultiNodeLaunch, DEFAULT_ENGINE_DIR, writeLaunchFiles } from './launch';
import { preflight } from './preflight';
import { isRunnerFile } from './snippets';
import { openClusterStore } from './store';

export { buildMultiNodeLaunch, writeLaunchFiles, DEFAULT_ENGINE_DIR, type MultiNodeLaunchOptions } from './launch';
export { clusterAssumptions, DEFAULT_INTER_NODE_GBIT } from './assumptions';
export { hostfileText, sshConfigText, deepspeedEnvText } from './files';
export { HEAD } from './preflight';
export { CLUSTERS_FILE } from './store';

export interface ClusterServiceOptions {
  dataDir: string;
  /** The bundled runner folder (resources/engine) of this app. */
  bundledEngineDir: string;
  /** The head node's interpreter for a cluster (Settings' pythonPath, else the first host's). */
  headPython(cluster: Cluster): string;
}

/**
 * Where a cluster's generated files go. pdsh splits PDSH_SSH_ARGS on spaces, so the ssh_config
 * path cannot hold one — and the default data folder ("…/Offload Studio") does: then a private
 * folder under the temp dir is used (the files are regenerated before every use anyway).
 */
export function clusterWorkDir(dataDir: string, name: string): string {
  const preferred = path.join(dataDir, 'clusters', name);
  if (ABSOLUTE_PATH_PATTERN.test(preferred)) return preferred;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(os.tmpdir(), `offload-studio-${uid}`, 'clusters', name);
}

export function createClusterService(options: ClusterServiceOptions) {
  const store = openClusterStore(options.dataDir);

  function need(name: string): ClusterRecord {
    const record = store.get(name);
    if (!record) throw new ApiError('not_found', `No cluster named '${name}'. Save it first (cluster/save).`, 'name');
    return record;
  }

  /** Computes the launch for a stored cluster and writes its hostfile, ssh_config and env file. */
  function prepareMultiNodeLaunch(name: string, specPath: string, script?: string): Launch {
    const { cluster } = need(name);
    const workDir = clusterWorkDir(options.dataDir, name);
    fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
    const launch = buildMultiNodeLaunch(cluster, specPath, {
      workDir,
      python: options.headPython(cluster),
      knownHostsFile: path.join(workDir, 'known_hosts'),
      script,
    });
    writeLaunchFiles(launch);
    return launch;
  }

  return {
    list: () => store.list(),
    get: (name: string) => need(name),
    save: (cluster: Cluster) => store.save(cluster),
    remove: (name: string) => store.remove(name),
    assumptions: (name: string) => clusterAssumptions(need(name).cluster),
    prepareMultiNodeLaunch,

    async detect(name: string): Promise<HostDetection[]> {
      const launch = prepareMultiNodeLaunch(name, '/dev/null');
      const detections = await detectHosts(need(name).cluster, { sshConfigPath: launch.sshConfigPath, bundledEngineDir: options.bundledEngineDir });
      store.recordDetections(name, detections);
      return detections;
    },

    async preflight(name: string): Promise<PreflightRow[]> {
      const { cluster } = need(name);
      const launch = prepareMultiNodeLaunch(name, '/dev/null');
      return preflight(cluster, { sshConfigPath: launch.sshConfigPath, headPython: launch.file, bundledEngineDir: options.bundledEngineDir });
    },

    /** Copies the app's runner into the cluster's engine folder on THIS machine (the launcher's cwd). */
    stageEngine(name: string): { engineDir: string; files: string[] } {
      const engineDir = need(name).cluster.engineDir ?? DEFAULT_ENGINE_DIR;
      fs.mkdirSync(engineDir, { recursive: true });
      // Modules and the data files they read (error-signatures.json, model-families.json).
      const files = fs.readdirSync(options.bundledEngineDir).filter((f) => isRunnerFile(f) && fs.statSync(path.join(options.bundledEngineDir, f)).isFile());
      for (const f of files) fs.copyFileSync(path.join(options.bundledEngineDir, f), path.join(engineDir, f));
      return { engineDir, files };
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
