// Calibration: fit the throughput model's efficiency factors (one per phase: compute, comm,
// transfer, cpuAdam, nvme) to measured runs of this machine. The model is linear in the factors,
// step = Σ f_k · T_k (T_k the exposed phase times), so the fit is a least-squares solve on
// relative error, pulled toward 1 (the uncalibrated model) so that a phase the runs never
// exercised keeps its prior. Pure: samples in, factors out.
import type { HardwareProfile, Workload, WorkloadInput } from '../../contract';
import { resolveModel } from './models';
import { countParams } from './params';
import { strategyById } from './presets';
import { phaseTimes, stepSecondsFrom, UNIT_FACTORS, type EfficiencyFactors, type PhaseTimes } from './throughput';
import { parseWorkload } from './workload';
import { DEFAULT_CPUADAM_CORES_PERC } from './ds-config';

export interface CalibrationSample {
  strategyId: string;
  workload: WorkloadInput | Workload;
  profile: HardwareProfile;
  cpuadamCoresPerc?: number;
  measuredStepSeconds: number;
}

export interface CalibrationResult {
  factors: EfficiencyFactors;
  samples: number;
  /** Root-mean-square relative error of the step time before and after the fit. */
  rmsRelativeErrorBefore: number;
  rmsRelativeErrorAfter: number;
  rows: { strategyId: string; measured: number; predicted: number; calibrated: number }[];
}

const KEYS = ['compute', 'comm', 'transfer', 'cpuAdam', 'nvme'] as const;
const PRIOR_WEIGHT = 0.05;

function exposedColumns(t: PhaseTimes): number[] {
  return [t.compute, t.comm * t.exposed.comm, t.transfer * t.exposed.transfer, t.cpuAdam * t.exposed.cpuAdam, t.nvme * t.exposed.nvme];
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    const d = m[c][c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / d;
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / (row[i] || 1e-12));
}

export function phaseTimesOf(sample: CalibrationSample): PhaseTimes {
  const workload = parseWorkload(sample.workload);
  const model = resolveModel(workload.model);
  return phaseTimes({
    strategy: strategyById(sample.strategyId),
    model,
    params: countParams(model),
    workload,
    profile: sample.profile,
    cpuadamCoresPerc: sample.cpuadamCoresPerc ?? workload.cpuadamCoresPerc ?? DEFAULT_CPUADAM_CORES_PERC,
  });
}

export function fitEfficiency(samples: CalibrationSample[]): CalibrationResult {
  const usable = samples.filter((s) => Number.isFinite(s.measuredStepSeconds) && s.measuredStepSeconds > 0);
  const times = usable.map(phaseTimesOf);
  const n = KEYS.length;
  // normal equations of min Σ ((Σ f_k T_k − y)/y)² + λ Σ (f_k − 1)² · scale_k²
  const ata = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const atb = new Array<number>(n).fill(0);
  const scale = new Array<number>(n).fill(0);
  times.forEach((t, i) => {
    const y = usable[i].measuredStepSeconds;
    const x = exposedColumns(t).map((v) => v / y);
    for (let j = 0; j < n; j++) {
      scale[j] = Math.max(scale[j], x[j]);
      atb[j] += x[j];
      for (let k = 0; k < n; k++) ata[j][k] += x[j] * x[k];
    }
  });
  for (let j = 0; j < n; j++) {
    const lambda = PRIOR_WEIGHT * Math.max(scale[j] * scale[j], 1e-6);
    ata[j][j] += lambda;
    atb[j] += lambda; // pulls f_j toward 1
  }
  const f = usable.length ? solve(ata, atb).map((v) => Math.min(10, Math.max(0.1, v))) : new Array<number>(n).fill(1);
  const factors = Object.fromEntries(KEYS.map((k, i) => [k, f[i]])) as unknown as EfficiencyFactors;
  const rows = usable.map((s, i) => ({
    strategyId: s.strategyId,
    measured: s.measuredStepSeconds,
    predicted: stepSecondsFrom(times[i], UNIT_FACTORS).seconds,
    calibrated: stepSecondsFrom(times[i], factors).seconds,
  }));
  const rms = (key: 'predicted' | 'calibrated') => (rows.length ? Math.sqrt(rows.reduce((a, r) => a + ((r[key] - r.measured) / r.measured) ** 2, 0) / rows.length) : 0);
  return { factors, samples: rows.length, rmsRelativeErrorBefore: rms('predicted'), rmsRelativeErrorAfter: rms('calibrated'), rows };
}
