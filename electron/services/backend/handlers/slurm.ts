// slurm/* channels: Slurm targets (saved, detected from sinfo/scontrol, pre-flighted with a tiny job) and the sbatch script of a spec.
import { createSlurmService } from '../../cluster';
import { enginePath } from '../../resources';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

type SlurmChannels = 'slurm/list' | 'slurm/save' | 'slurm/delete' | 'slurm/detect' | 'slurm/machine' | 'slurm/preflight' | 'slurm/script';

export function slurmHandlers(ctx: BackendContext): HandlerMap<SlurmChannels> {
  const service = createSlurmService({ dataDir: ctx.dataDir, bundledEngineDir: enginePath() });
  return {
    'slurm/list': () => ({ targets: service.list() }),
    'slurm/save': (target) => service.save(target),
    'slurm/delete': ({ name }) => ({ deleted: service.remove(name) }),
    'slurm/detect': ({ name }) => service.detect(name),
    'slurm/machine': ({ name }) => service.machine(name),
    'slurm/preflight': async ({ name }) => {
      const rows = await service.preflight(name);
      return { ok: rows.every((r) => r.ok), rows };
    },
    'slurm/script': ({ name, spec }) => ({ script: service.script(name, spec) }),
  };
}
