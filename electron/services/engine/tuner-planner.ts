// The tuner service as the orchestrator's Planner: the plan's own specs (planWorkload), so a run
// started from a workload executes what the Plan page shows for it. Without a machine snapshot
// there is nothing to plan against: the specs carry no prediction.
import * as tuner from '../tuner';
import { ApiError, MachineSchema, type Machine, type Workload } from '../../contract';
import type { Planner } from './planner';

export interface TunerPlannerOptions {
  /** The measurements of the machine planned for (keyed by its machineId). */
  measurements?: (machine: Machine) => unknown;
  calibration?: (machine: Machine) => Record<string, tuner.EfficiencyFactors> | undefined;
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
      const plan = tuner.planWorkload(workload, {
        machine: parsed.data,
        measurements: options.measurements?.(parsed.data),
        calibration: options.calibration?.(parsed.data),
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
