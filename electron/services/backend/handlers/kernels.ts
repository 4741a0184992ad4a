// The workload's own kernels for a plan on this host (plan/compute): the kernel probe on this GPU
// (services/environment kernel-probe.ts, cached per config × GPU × dtype × sequence × micro batch), or why
// not — a machine file or a catalogued machine is not this host, a machine without a GPU has nothing to
// probe, an architecture given only by its numbers has no config.json to build. The tuner uses the figures
// instead of its catalogue constants for that workload; a reason leaves the constants, said in the plan's
// notes (services/tuner kernels.ts). Nothing here fails a plan.
import type { KernelsInput, Machine, ModelArch, Workload } from '../../../contract';
import { probeKernels, storedPresetConfig } from '../../environment';
import { kernelProbeMicros, presetsPayload } from '../../tuner';
import type { BackendContext } from '../context';
import { enginePython } from './model-guard';

/** Set to 1 to plan without the kernel probe (the catalogue's constants, said so in the notes). */
export const NO_KERNEL_PROBE_ENV = 'OFFLOAD_STUDIO_NO_KERNEL_PROBE';

/** The architecture numbers a preset's stored config.json must still have for it to be that model. */
const SAME_NUMBERS = [
  'hiddenSize',
  'numLayers',
  'numHeads',
  'numKvHeads',
  'intermediateSize',
  'vocabSize',
  'headDim',
  'tieEmbeddings',
] as const;

/** The config.json the probe builds: an import's own, a preset's stored one (its numbers unchanged), else null. */
export function probeConfigOf(model: ModelArch): string | Record<string, unknown> | null {
  if (model.hfConfigText) return model.hfConfigText; // the file as read: transformers gets its bytes
  if (model.hfConfig) return model.hfConfig;
  const preset = presetsPayload().models.find((m) => m.id === model.id);
  if (!preset || SAME_NUMBERS.some((k) => preset[k] !== model[k])) return null;
  return storedPresetConfig(model.id);
}

function runningHere(ctx: BackendContext, machine: Machine): boolean {
  try {
    return ctx.history.listRuns({ machineId: machine.machineId, status: 'running', limit: 1 }).total > 0;
  } catch {
    return false; // an unreadable history does not stop the probe
  }
}

/** plan/compute's computePlan `kernels`: asked once the workload and the machine planned for are resolved. */
export function kernelsForPlan(ctx: BackendContext, env: NodeJS.ProcessEnv = process.env) {
  return async (model: ModelArch, workload: Workload, machine: Machine, source: 'detected' | 'file'): Promise<KernelsInput> => {
    if (source !== 'detected')
      return { reason: 'the plan is for a machine from a file, not this host: its GPU cannot be probed from here' };
    const gpu = machine.gpus[0];
    if (!gpu) return { reason: 'no GPU on this machine' };
    if (env[NO_KERNEL_PROBE_ENV] === '1') return { reason: `the kernel probe is switched off (${NO_KERNEL_PROBE_ENV}=1)` };
    // a run training on this machine now would be timed with it (and the probe could take its memory)
    if (runningHere(ctx, machine))
      return { reason: 'a run is training on this machine now: its GPU was not probed (the timings would be shared with that run)' };
    const config = probeConfigOf(model);
    if (!config) return { reason: `no config.json to build ${model.label} from (an architecture given by its numbers alone)` };
    return probeKernels({
      config,
      python: await enginePython(ctx.dataDir),
      dataDir: ctx.dataDir,
      gpuName: gpu.name,
      dtype: workload.precision,
      seqLen: workload.seqLen,
      checkpointing: workload.activationCheckpointing,
      micros: kernelProbeMicros(model, workload, gpu.memoryBytes),
    });
  };
}
