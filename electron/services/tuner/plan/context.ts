// What every evaluation of one workload on one machine reads, set up once for a plan, one configuration
// and one prediction alike: the workload parsed, the model resolved and counted (with the workload's own
// kernels where they were probed), the machine's profile, the CPU Adam share of the cores, and what this
// machine kind's runs say (calibration, memory evidence).
import type { HardwareProfile, KernelsInput, Machine, ModelArch, PlanKernels, Workload, WorkloadInput } from '../../../contract';
import { normalizeMeasurements } from '../catalogue/measurements';
import { resolveModel } from '../catalogue/models';
import { buildProfile, cpuAdamRate } from '../catalogue/profile';
import { parseWorkload } from '../catalogue/workload';
import { DEFAULT_CPUADAM_CORES_PERC } from '../config/ds-config';
import { kernelsForPlan, withKernels } from '../model/kernels';
import type { MemoryEvidence } from '../model/memory-evidence';
import { countParams, type ParamCount } from '../model/params';
import { THROUGHPUT_CONSTANTS, type EfficiencyFactors } from '../model/throughput';

export interface PlanOptions {
  machine: Machine;
  machineSource?: HardwareProfile['machineSource'];
  /** Host measurements of any known shape (normalised structurally). */
  measurements?: unknown;
  /** Fitted efficiency factors (calibration from history), per strategy id or for all ('*'). */
  calibration?: Record<string, EfficiencyFactors>;
  scenario?: string | null;
  /** Restrict to these strategies (default: all). */
  strategies?: string[];
  /** What this machine kind's runs say about memory: measured fits and OOMs, the model's error per strategy (memory-evidence.ts). */
  memory?: MemoryEvidence;
  /** The workload's own kernels measured on this GPU (kernel probe), or why there are none: kernels.ts. */
  kernels?: KernelsInput;
}

/**
 * cpuadam_cores_perc for SuperOffload: from the measured CPU Adam sweep, the fewest threads that reach
 * 95% of the best rate while the training processes keep 2 cores per rank; without a measured sweep,
 * the DeepSpeedExamples value 0.90 (lowered only if it would starve the training processes).
 */
export function chooseCpuadamCoresPerc(hw: HardwareProfile, gpusPerNode: number, measured: boolean, measuredPick?: number): number {
  const cores = hw.physicalCores;
  if (measuredPick !== undefined) return Math.min(0.95, Math.max(0.05, Math.round(measuredPick * 100) / 100));
  const maxThreads = Math.max(1, cores - THROUGHPUT_CONSTANTS.minTrainingCoresPerRank * gpusPerNode);
  const clamp = (p: number) => Math.min(0.95, Math.max(0.05, Math.round(p * 100) / 100));
  if (!measured) return clamp(Math.min(DEFAULT_CPUADAM_CORES_PERC, maxThreads / cores));
  const candidates = [...new Set([...hw.cpuAdam.map((r) => r.threads), maxThreads])].filter((t) => t <= maxThreads).sort((a, b) => a - b);
  const best = Math.max(...candidates.map((t) => cpuAdamRate(hw, t)));
  const chosen = candidates.find((t) => cpuAdamRate(hw, t) >= 0.95 * best) ?? maxThreads;
  return clamp(chosen / cores);
}

/** The set-up every evaluation of one workload on one machine shares (planContext). */
export interface PlanContext {
  workload: Workload;
  model: ModelArch;
  /** Counted with the workload's own kernels where the plan had them. */
  params: ParamCount;
  machine: Machine;
  hw: HardwareProfile;
  /** The kernels the counts use, or why none (the plan's note). */
  kernels: PlanKernels;
  /** cpuadam_cores_perc where the knobs do not set it: the workload's, else chooseCpuadamCoresPerc's. */
  perc: number;
  calibration?: Record<string, EfficiencyFactors>;
  evidence?: MemoryEvidence;
}

export function planContext(input: WorkloadInput | Workload, options: PlanOptions): PlanContext {
  const workload = parseWorkload(input);
  const model = resolveModel(workload.model);
  // Mixture-of-Experts: the memory errors and speed factors measured here come from dense runs, whose
  // matmuls are not a routed expert's; until MoE runs exist its bands are the uncalibrated ones.
  const dense = !countParams(model).experts;
  const measurements = normalizeMeasurements(options.measurements);
  const hw = buildProfile(options.machine, options.machineSource ?? 'detected', measurements);
  const kernels = kernelsForPlan(options.kernels, model, workload, hw);
  return {
    workload,
    model,
    params: withKernels(countParams(model), kernels.use),
    machine: options.machine,
    hw,
    kernels: kernels.plan,
    perc:
      workload.cpuadamCoresPerc ??
      chooseCpuadamCoresPerc(hw, workload.gpus, !!measurements?.cpuAdam?.length, measurements?.recommendedCoresPerc),
    calibration: dense ? options.calibration : undefined,
    evidence: dense ? options.memory : undefined,
  };
}

/** A strategy's fitted efficiency factors: its own, else those fitted for all. */
export function factorsFor(ctx: Pick<PlanContext, 'calibration'>, strategyId: string): EfficiencyFactors | undefined {
  return ctx.calibration?.[strategyId] ?? ctx.calibration?.['*'];
}
