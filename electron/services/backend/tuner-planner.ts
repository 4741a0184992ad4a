// The tuner service as the orchestrator's Planner, handed to the engine (which never plans itself): the
// plan's own specs (planWorkload), so a run started from a workload executes what the Plan page shows
// for it; the refusal of a spec that can never run here; and the sizing of a run on this host
// (size-here.ts). Without a machine snapshot there is nothing to plan against: the specs carry no prediction.
import * as tuner from '../tuner';
import { ApiError, MachineSchema, type Machine, type RunSpec, type Workload } from '../../contract';
import type { Planner } from '../engine';
import { sizeRunHere } from './size-here';

/** What a plan for a machine reads from the data folder — the same three plan/compute reads
 *  (handlers/calibration.ts forMachine), so `run` without --micro-batch runs what `plan` shows. */
export interface PlannerFigures {
  /** The measurements of the machine planned for (keyed by its machineId). */
  measurements?: unknown;
  calibration?: Record<string, tuner.EfficiencyFactors>;
  /** The runs of the machine kind as memory points: the verdicts' bands and what was measured. Without
   *  them every strategy took the uncalibrated ±10% band and `run` ran gpu-zero3 micro 4 where `plan` showed 6. */
  memory?: tuner.MemoryEvidence;
}

export interface TunerPlannerOptions {
  figures?: (machine: Machine) => PlannerFigures;
}

/**
 * What DeepSpeed's CPU accelerator can run when there is no GPU: ZeRO 1–3 without offload as well as
 * with CPU offload (the runner falls back to it; gpu-zero1 ran tiny-llama on this 2-core VM), but not
 * SuperOffload (it asserts CUDA), NVMe swapping (needs a drive) or FSDP2 (its CPU offload policy is
 * for a GPU's states).
 */
function runsOnCpu(s: { id: string; limitedBy: string | null }): boolean {
  return s.limitedBy === 'gpu-count' && tuner.mechanismOf(tuner.strategyById(s.id)).withoutGpu !== 'never';
}

/** The refusal of strategies the plan says cannot run on this machine, with what can run instead. */
function cannotRunHere(
  cannot: { id: string; label: string; reason: string }[],
  workload: Workload,
  machine: Machine,
  forcible: boolean,
  asked?: string,
  field = 'strategies',
): ApiError {
  const runnable = tuner
    .planWorkload(workload, { machine })
    .strategies.filter((s) => s.fits)
    .map((s) => s.id);
  return new ApiError(
    'cannot_run_here',
    `${asked ? `${asked}: ` : ''}${cannot.map((s) => `${s.label} (${s.id})`).join(', ')} cannot run on this machine: ${cannot[0].reason}.${runnable.length ? ` What can run here: ${runnable.join(', ')}.` : ''} Run one of those here, or this one on a machine that has what it needs${forcible ? `${cannot.length > 1 ? '; or run them' : '; or run it'} on this machine's CPU anyway (DeepSpeed's CPU accelerator: CPU figures that say nothing about a GPU) with run --force` : ''}.`,
    field,
  );
}

/**
 * The catalogue strategy whose engine a given spec needs: its own, or for a user's config that maps
 * to none ("custom"), the one its config has the shape of (the registry's strategyOfConfig, the one
 * decision); failing that, SuperOffload where the config turns it on (super_offload: true asserts
 * CUDA whatever else the config says).
 */
function strategyOfSpec(spec: RunSpec): string | null {
  if (spec.strategy !== 'custom') return spec.strategy;
  const parts = tuner.configParts(spec.dsConfig, spec.fsdp);
  const shaped = tuner.strategyOfConfig(parts).strategy;
  if (shaped) return shaped.id;
  return parts.offloadOptimizer?.super_offload === true ? 'superoffload' : null;
}

export function createTunerPlanner(options: TunerPlannerOptions = {}): Planner {
  return {
    sizeHere: sizeRunHere,
    refuseSpecs(specs: RunSpec[], machine: unknown) {
      // A spec given as it is (run --ds-config, a spec file) meets the rule a strategy id meets: what
      // can never run on this machine (SuperOffload without CUDA, NVMe without a drive, FSDP2
      // without a GPU) is refused before anything is queued, in the same words — it used to start,
      // fail in the runner's pre-flight and leave a failed run in history. What the CPU accelerator
      // can run still runs (a user's ZeRO config on a machine without a GPU is a CPU smoke run).
      const parsed = MachineSchema.safeParse(machine);
      if (!parsed.success) return;
      for (const spec of specs) {
        const fp16 = (spec.dsConfig?.fp16 as { enabled?: unknown } | undefined)?.enabled === true;
        if (fp16 && parsed.data.gpus.length === 0)
          // DeepSpeed's CPU accelerator has no fp16: initialize stops with "Type fp16 is not supported on your device."
          throw new ApiError(
            'cannot_run_here',
            `${spec.userConfig ? `${spec.userConfig.fileName}: ` : ''}fp16 cannot run on this machine: it has no GPU, and DeepSpeed's CPU accelerator has no fp16 ("Type fp16 is not supported on your device."). Run it on a machine with a GPU, or set fp16.enabled to false and bf16.enabled to true for a CPU smoke run here.`,
            'specs',
          );
        const id = strategyOfSpec(spec);
        if (!id || tuner.mechanismOf(tuner.strategyById(id)).withoutGpu !== 'never') continue;
        let workload: Workload;
        try {
          workload = tuner.parseWorkload({
            model: spec.model.id,
            seqLen: spec.seqLen,
            microBatch: spec.microBatch,
            gradAccum: spec.gradAccum,
            gpus: spec.gpus,
            nodes: spec.nodes,
          });
        } catch {
          // a model this machine's catalogue does not know (an imported config.json): the rule without the plan's words
          if (parsed.data.gpus.length > 0) continue;
          const s = tuner.strategyById(id);
          throw new ApiError(
            'cannot_run_here',
            `${spec.userConfig ? `${spec.userConfig.fileName}: ` : ''}${s.label} (${id}) cannot run on this machine: it has no GPU. Run it on a machine with a GPU.`,
            'specs',
          );
        }
        const planned = tuner.planWorkload(workload, { machine: parsed.data, strategies: [id] }).strategies.find((s) => s.id === id);
        if (planned && (planned.limitedBy === 'gpu-count' || planned.limitedBy === 'requirement'))
          throw cannotRunHere([planned], workload, parsed.data, false, spec.userConfig?.fileName, 'specs');
      }
    },
    specs(workload: Workload, strategies: string[], machine: unknown, { force = false }: { force?: boolean } = {}) {
      for (const id of strategies) tuner.strategyById(id); // an unknown id fails before anything runs
      const parsed = MachineSchema.safeParse(machine);
      if (!parsed.success) return strategies.map((id) => tuner.buildRunSpec(workload, id));
      const figures = options.figures?.(parsed.data) ?? {};
      const plan = tuner.planWorkload(workload, {
        machine: parsed.data,
        measurements: figures.measurements,
        calibration: figures.calibration,
        memory: figures.memory,
        strategies: [...new Set(strategies)],
      });
      // A strategy the plan says cannot run on this machine at all (no GPU, no CUDA, no NVMe) is refused
      // here, as the Plan page does not offer it: `run --strategy gpu-zero1` on a machine without a GPU
      // used to start anyway. (A plan for another machine is refused earlier, in sweep.ts.)
      // Only a lack of GPUs can be forced past, and only for what the runner can do on the CPU accelerator.
      const cannot = plan.strategies.filter(
        (s) => strategies.includes(s.id) && (s.limitedBy === 'gpu-count' || s.limitedBy === 'requirement') && !(force && runsOnCpu(s)),
      );
      if (cannot.length) throw cannotRunHere(cannot, workload, parsed.data, cannot.every(runsOnCpu));
      return strategies.map((id) => plan.strategies.find((s) => s.id === id)!.spec);
    },
  };
}
