// The tuner service as the orchestrator's Planner: the plan's own specs (planWorkload), so a run
// started from a workload executes what the Plan page shows for it. Without a machine snapshot
// there is nothing to plan against: the specs carry no prediction.
import * as tuner from '../tuner';
import { ApiError, MachineSchema, type Machine, type Workload } from '../../contract';
import type { Planner } from './planner';

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

export function createTunerPlanner(options: TunerPlannerOptions = {}): Planner {
  return {
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
      if (cannot.length) {
        const runnable = tuner
          .planWorkload(workload, { machine: parsed.data })
          .strategies.filter((s) => s.fits)
          .map((s) => s.id);
        const forcible = cannot.every(runsOnCpu);
        throw new ApiError(
          'cannot_run_here',
          `${cannot.map((s) => `${s.label} (${s.id})`).join(', ')} cannot run on this machine: ${cannot[0].reason}.${runnable.length ? ` What can run here: ${runnable.join(', ')}.` : ''} Run one of those here, or this one on a machine that has what it needs${forcible ? `${cannot.length > 1 ? '; or run them' : '; or run it'} on this machine's CPU anyway (DeepSpeed's CPU accelerator: CPU figures that say nothing about a GPU) with run --force` : ''}.`,
          'strategies',
        );
      }
      return strategies.map((id) => plan.strategies.find((s) => s.id === id)!.spec);
    },
  };
}

export const tunerPlanner: Planner = createTunerPlanner();
