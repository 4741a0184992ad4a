// Calibration: fit the throughput model's efficiency factors to measured runs of one machine.
// The model is linear in the factors, step = Σ f_k · T_k (T_k the exposed physical terms: compute,
// per-layer gather cost, pinned and pageable copies, host copies, CPU Adam, …), so each fit is a
// least-squares solve on relative error. Two levels:
//   - the machine: one factor set over every run (prior: 1, the uncalibrated model);
//   - each strategy (and so each engine): its own factors, pulled toward the machine's, so a
//     strategy with one configuration measured moves only the terms that dominate it, and one
//     never measured uses the machine's.
// Leave-one-out error says how well it generalises: each run predicted from a fit without it (and,
// stricter, without every run of the same configuration, its repeats included).
// Pure: samples in, factors out.
import {
  finiteNumber,
  ModelArchSchema,
  ranWorkloadOf,
  worldSize,
  type HardwareProfile,
  type ModelArch,
  type StoredConfig,
  type StoredSpec,
  type Workload,
  type WorkloadInput,
} from '../../../contract';
import { DEFAULT_CPUADAM_CORES_PERC } from '../config/ds-config';
import { knobsOfConfig } from '../mechanisms';
import { resolveModel } from '../catalogue/models';
import { countParams } from './params';
import { strategyById } from '../catalogue/presets';
import {
  completeFactors,
  exposedTerms,
  FACTOR_KEYS,
  phaseTimes,
  stepSecondsFrom,
  UNIT_FACTORS,
  type EfficiencyFactors,
  type FactorKey,
  type PhaseTimes,
  type ThroughputKnobs,
} from './throughput';
import { parseWorkload } from '../catalogue/workload';

export interface CalibrationSample {
  strategyId: string;
  workload: WorkloadInput | Workload;
  profile: HardwareProfile;
  cpuadamCoresPerc?: number;
  /** The knobs the run's config had (ratio, overlap_comm, …), read from its stored config. */
  knobs?: ThroughputKnobs;
  measuredStepSeconds: number;
  /** The run's id in history (reported back: "calibrated from runs …"). */
  runId?: string;
}

export interface CalibrationRow {
  runId: string | null;
  strategyId: string;
  /** What was run, in words (micro batch, knobs), to group repeats. */
  config: string;
  measured: number;
  predicted: number;
  calibrated: number;
  /** Predicted from a fit without this run (NaN for runs past the leave-one-out sample of a long history). */
  leaveOneOut: number;
  /** Predicted from a fit without any run of the same strategy and configuration (repeats included). */
  leaveConfigOut: number;
  /** Predicted from a fit without any run of the same workload (model × sequence length), every strategy's. */
  leaveWorkloadOut: number;
  /** Predicted from a fit without any run of the same model (every sequence length, every strategy): the
   *  headline test figure — a model's other sequence lengths say too much about it to count as unseen. */
  leaveModelOut: number;
}

export interface CalibrationResult {
  /** The machine's factors (every run): what a strategy never run here uses. */
  factors: EfficiencyFactors;
  /** Per strategy id, its own fitted factors (only strategies with runs). */
  perStrategy: Record<string, EfficiencyFactors>;
  samples: number;
  runIds: string[];
  /** Root-mean-square relative error of the step time: uncalibrated, calibrated (in-sample), leave-one-out. */
  rmsRelativeErrorBefore: number;
  rmsRelativeErrorAfter: number;
  rmsLeaveOneOut: number;
  rmsLeaveConfigOut: number;
  rmsLeaveWorkloadOut: number;
  rmsLeaveModelOut: number;
  /** The same, per strategy. */
  byStrategy: Record<
    string,
    {
      runs: number;
      before: number;
      after: number;
      leaveOneOut: number;
      leaveConfigOut: number;
      leaveWorkloadOut: number;
      leaveModelOut: number;
    }
  >;
  rows: CalibrationRow[];
}

const CLAMP: [number, number] = [0.2, 8];

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
    cpuadamCoresPerc: sample.knobs?.cpuadamCoresPerc ?? sample.cpuadamCoresPerc ?? workload.cpuadamCoresPerc ?? DEFAULT_CPUADAM_CORES_PERC,
    knobs: sample.knobs,
  });
}

interface Prepared {
  sample: CalibrationSample;
  columns: number[];
  y: number;
  config: string;
  /** workloadKey of the run: what the leave-one-workload-out fit holds out. */
  workload: string;
  /** The run's model (preset id or imported config's id): what the leave-one-model-out fit holds out. */
  model: string;
}

/**
 * One joint fit, two levels. Shared by every strategy of the machine: the GPU's compute efficiency
 * and its collectives. Each strategy's own: per-layer gather cost, pinned and pageable copies, host
 * copies, CPU Adam, NVMe. Every factor is pulled toward 1 (the uncalibrated model) with a weight
 * scaled by how much the runs exercise its term, so a term the runs barely touch keeps its prior,
 * and a fit on one micro batch still scales with the micro batch (the factors scale physical terms).
 */
const SHARED: readonly FactorKey[] = ['compute', 'comm'];
const OWN: readonly FactorKey[] = FACTOR_KEYS.filter((k) => !SHARED.includes(k));
const SHARED_PRIOR = 0.05;
const OWN_PRIOR = 0.15;
/**
 * Each strategy may also move the shared compute factor a little (its own deviation, pulled toward 0
 * by this much more than an own factor is pulled toward 1): host copies and CPU work slow the GPU's
 * kernels more under some strategies (on the H200, ZeRO-Offload's step grew 2× faster with the micro
 * batch than the same compute without offload).
 */
const COMPUTE_DEVIATION_PRIOR = 1;
/**
 * The least term size (relative to the run's step) a factor's prior is weighted as. The prior's weight is
 * scaled by how much the runs exercise the term (scale²), which for one run moves every factor until each
 * term carries the same share of the run's error: the factor of a term that is 1% of that step moved 20×
 * as far as one of 20%, and then multiplied a workload where that term is large (once, SuperOffload's
 * one Llama-3.1-8B run, 20% slow, set the factors the Llama-3.2-3B runs were predicted with, +40–60%).
 * With the floor, a factor moves by a run's whole error only where its term is at least half that run's
 * step. 0.5 is a choice, made with the leave-one-workload-out figure in view (0 → 18.0%, 0.25 → 15.6%,
 * 0.5 → 14.0% RMS over the 57 H200 runs): the held-out figure is that much less a pure test figure.
 */
const PRIOR_TERM_FLOOR = 0.5;

interface Levels {
  machine: EfficiencyFactors;
  perStrategy: Record<string, EfficiencyFactors>;
}

function fitLevels(rows: Prepared[]): Levels {
  const strategies = [...new Set(rows.map((r) => r.sample.strategyId))];
  const perStrategyUnknowns = OWN.length + 1; // own factors + the compute deviation
  const n = SHARED.length + perStrategyUnknowns * strategies.length;
  // column index of (strategy, factor) in the unknown vector
  const index = (strategy: string, key: FactorKey) =>
    SHARED.includes(key) ? SHARED.indexOf(key) : SHARED.length + strategies.indexOf(strategy) * perStrategyUnknowns + OWN.indexOf(key);
  const deviation = (strategy: string) => SHARED.length + strategies.indexOf(strategy) * perStrategyUnknowns + OWN.length;
  const isDeviation = (j: number) => j >= SHARED.length && (j - SHARED.length) % perStrategyUnknowns === OWN.length;
  const ata = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const atb = new Array<number>(n).fill(0);
  const scale = new Array<number>(n).fill(0);
  const computeColumn = FACTOR_KEYS.indexOf('compute');
  for (const r of rows) {
    const entries: (readonly [number, number])[] = FACTOR_KEYS.map(
      (key, i) => [index(r.sample.strategyId, key), r.columns[i] / r.y] as const,
    );
    entries.push([deviation(r.sample.strategyId), r.columns[computeColumn] / r.y]);
    for (const [j, xj] of entries) {
      scale[j] = Math.max(scale[j], xj);
      atb[j] += xj;
      for (const [k, xk] of entries) ata[j][k] += xj * xk;
    }
  }
  for (let j = 0; j < n; j++) {
    const weight = j < SHARED.length ? SHARED_PRIOR : isDeviation(j) ? COMPUTE_DEVIATION_PRIOR : OWN_PRIOR;
    const lambda = weight * Math.max(scale[j] * scale[j], PRIOR_TERM_FLOOR * PRIOR_TERM_FLOOR);
    ata[j][j] += lambda;
    if (!isDeviation(j)) atb[j] += lambda; // toward 1 (a deviation toward 0)
  }
  const raw = rows.length ? solve(ata, atb) : new Array<number>(n).fill(1);
  const f = raw.map((v, j) => (isDeviation(j) ? v : scale[j] < 1e-4 ? 1 : Math.min(CLAMP[1], Math.max(CLAMP[0], v))));
  const machine = { ...UNIT_FACTORS };
  for (const key of SHARED) machine[key] = f[SHARED.indexOf(key)];
  const perStrategy: Record<string, EfficiencyFactors> = {};
  for (const id of strategies) {
    const own = Object.fromEntries(FACTOR_KEYS.map((key) => [key, f[index(id, key)]])) as unknown as EfficiencyFactors;
    own.compute = Math.min(CLAMP[1], Math.max(CLAMP[0], own.compute + f[deviation(id)]));
    perStrategy[id] = own;
  }
  return { machine, perStrategy };
}

function stepWith(columns: number[], f: EfficiencyFactors): number {
  return FACTOR_KEYS.reduce((a, key, i) => a + columns[i] * f[key], 0);
}

/** The workload a run belongs to for held-out figures: model × sequence length ("llama-3.1-8b s4096"). */
export function workloadKey(w: Pick<Workload, 'model' | 'seqLen'>): string {
  return `${typeof w.model === 'string' ? w.model : w.model.id} s${w.seqLen}`;
}

function configKey(s: CalibrationSample): string {
  const w = parseWorkload(s.workload);
  const knobs = Object.entries(s.knobs ?? {})
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return `${workloadKey(w)} micro ${w.microBatch}×${w.gradAccum} ×${worldSize(w)}${knobs ? ` ${knobs}` : ''}`;
}

const rms = (values: number[]) => {
  const xs = values.filter(Number.isFinite);
  return xs.length ? Math.sqrt(xs.reduce((a, x) => a + x * x, 0) / xs.length) : 0;
};
/** Runs predicted leave-one-out at most (evenly spread over the history). */
const LOO_MAX = 60;

export function fitCalibration(samples: CalibrationSample[]): CalibrationResult {
  const rows: Prepared[] = [];
  for (const sample of samples) {
    if (!Number.isFinite(sample.measuredStepSeconds) || sample.measuredStepSeconds <= 0) continue;
    const t = phaseTimesOf(sample);
    const e = exposedTerms(t);
    const columns = FACTOR_KEYS.map((key) => e[key]);
    if (!columns.every(Number.isFinite)) continue;
    const w = parseWorkload(sample.workload);
    rows.push({
      sample,
      columns,
      y: sample.measuredStepSeconds,
      config: configKey(sample),
      workload: workloadKey(w),
      model: typeof w.model === 'string' ? w.model : w.model.id,
    });
  }
  const { machine, perStrategy } = fitLevels(rows);
  const predictWith = (fit: Levels, r: Prepared) => stepWith(r.columns, fit.perStrategy[r.sample.strategyId] ?? fit.machine);
  // held-out fits: one per configuration (its repeats share it); leave-one-out for at most LOO_MAX runs
  // (evenly spread), so a plan over a long history stays fast
  const configFits = new Map<string, Levels>();
  const workloadFits = new Map<string, Levels>();
  const modelFits = new Map<string, Levels>();
  const step = Math.max(1, Math.ceil(rows.length / LOO_MAX));
  const out: CalibrationRow[] = rows.map((r, i) => {
    const without = i % step === 0 ? fitLevels(rows.filter((_, j) => j !== i)) : null;
    const key = `${r.sample.strategyId}|${r.config}`;
    let withoutConfig = configFits.get(key);
    if (!withoutConfig)
      configFits.set(
        key,
        (withoutConfig = fitLevels(rows.filter((o) => !(o.sample.strategyId === r.sample.strategyId && o.config === r.config)))),
      );
    let withoutWorkload = workloadFits.get(r.workload);
    if (!withoutWorkload) workloadFits.set(r.workload, (withoutWorkload = fitLevels(rows.filter((o) => o.workload !== r.workload))));
    let withoutModel = modelFits.get(r.model);
    if (!withoutModel) modelFits.set(r.model, (withoutModel = fitLevels(rows.filter((o) => o.model !== r.model))));
    return {
      runId: r.sample.runId ?? null,
      strategyId: r.sample.strategyId,
      config: r.config,
      measured: r.y,
      predicted: stepWith(r.columns, UNIT_FACTORS),
      calibrated: stepWith(r.columns, perStrategy[r.sample.strategyId] ?? machine),
      leaveOneOut: without ? predictWith(without, r) : NaN,
      leaveConfigOut: predictWith(withoutConfig, r),
      leaveWorkloadOut: predictWith(withoutWorkload, r),
      leaveModelOut: predictWith(withoutModel, r),
    };
  });
  return { factors: machine, perStrategy, ...summarizeCalibrationRows(out) };
}

/**
 * The error figures of a set of calibration rows, overall and per strategy. fitCalibration reports its own
 * rows with it; a caller that fits several machines separately (each as the app calibrates: one machine or
 * kind's runs) merges their rows and summarises them here.
 */
export function summarizeCalibrationRows(out: CalibrationRow[]): Omit<CalibrationResult, 'factors' | 'perStrategy'> {
  const err = (
    r: CalibrationRow,
    key: 'predicted' | 'calibrated' | 'leaveOneOut' | 'leaveConfigOut' | 'leaveWorkloadOut' | 'leaveModelOut',
  ) => (r[key] - r.measured) / r.measured;
  const byStrategy: CalibrationResult['byStrategy'] = {};
  for (const id of new Set(out.map((r) => r.strategyId))) {
    const rs = out.filter((r) => r.strategyId === id);
    byStrategy[id] = {
      runs: rs.length,
      before: rms(rs.map((r) => err(r, 'predicted'))),
      after: rms(rs.map((r) => err(r, 'calibrated'))),
      leaveOneOut: rms(rs.map((r) => err(r, 'leaveOneOut'))),
      leaveConfigOut: rms(rs.map((r) => err(r, 'leaveConfigOut'))),
      leaveWorkloadOut: rms(rs.map((r) => err(r, 'leaveWorkloadOut'))),
      leaveModelOut: rms(rs.map((r) => err(r, 'leaveModelOut'))),
    };
  }
  return {
    samples: out.length,
    runIds: out.map((r) => r.runId).filter((id): id is string => !!id),
    rmsRelativeErrorBefore: rms(out.map((r) => err(r, 'predicted'))),
    rmsRelativeErrorAfter: rms(out.map((r) => err(r, 'calibrated'))),
    rmsLeaveOneOut: rms(out.map((r) => err(r, 'leaveOneOut'))),
    rmsLeaveConfigOut: rms(out.map((r) => err(r, 'leaveConfigOut'))),
    rmsLeaveWorkloadOut: rms(out.map((r) => err(r, 'leaveWorkloadOut'))),
    rmsLeaveModelOut: rms(out.map((r) => err(r, 'leaveModelOut'))),
    byStrategy,
    rows: out,
  };
}

/** The older name: one fit over the samples (the machine's factors are `factors`). */
export const fitEfficiency = fitCalibration;

/** The table planWorkload applies: each strategy's own factors, '*' (the machine's) for the rest. */
export function calibrationTable(result: CalibrationResult): Record<string, EfficiencyFactors> {
  return { '*': result.factors, ...result.perStrategy };
}

/** One line for a plan's notes: which runs, and the error before/after. */
export function calibrationNote(result: CalibrationResult, where = 'this machine'): string {
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const strategies = Object.entries(result.byStrategy)
    .map(
      ([id, s]) =>
        `${id} ${s.runs} (${pct(s.before)} → ${pct(s.after)}, held out ${pct(s.leaveConfigOut)}, model held out ${pct(s.leaveModelOut)})`,
    )
    .join('; ');
  const ids = result.runIds.length
    ? ` Runs: ${result.runIds.slice(0, 12).join(', ')}${result.runIds.length > 12 ? ` and ${result.runIds.length - 12} more` : ''}.`
    : '';
  return (
    `Calibrated from ${result.samples} completed run(s) on ${where}: step-time error ${pct(result.rmsRelativeErrorBefore)} → ${pct(result.rmsRelativeErrorAfter)} RMS ` +
    `(leave-one-out ${pct(result.rmsLeaveOneOut)}; a configuration never run here ${pct(result.rmsLeaveConfigOut)}; a model never run here ${pct(result.rmsLeaveModelOut)}, every run of the model held out — the figure for a model you bring; its sequence lengths held out one at a time ${pct(result.rmsLeaveWorkloadOut)}). Per strategy: ${strategies}.${ids}`
  );
}

export { completeFactors, stepSecondsFrom };

// ---------------------------------------------------------------- stored runs → samples

// The config itself (ds_config / fsdp block) is the engine's document, not ours: read as JSON.
const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** The knobs a run really ran with, read from its config (the runner's effectiveConfig or the spec's dsConfig / fsdp block) by the mechanism it describes. */
export function knobsFromConfig(config: unknown, fsdp?: unknown): ThroughputKnobs {
  return knobsOfConfig(config, fsdp);
}

export interface StoredRunFacts {
  runId: string;
  strategy: string;
  stepSeconds: number | null;
  /** details.spec of the run as history reads it (contract StoredSpec: the RunSpec, or an older spec shape). */
  spec: StoredSpec | null | undefined;
  /** details.config (contract StoredConfig: the runner's config line — effectiveConfig, modelId, worldSize…). */
  config?: StoredConfig | null;
  /** The run's model column. */
  model?: string | null;
}

/** What a stored run ran — strategy, workload, knobs — read from its spec and config line; null when it
 *  lacks what the model needs (or names a preset that no longer exists). Shared by the time calibration
 *  and the memory evidence (memory-evidence.ts). */
export function storedRunWorkload(
  run: Omit<StoredRunFacts, 'stepSeconds'>,
): { strategyId: string; workload: Workload; knobs: ThroughputKnobs } | null {
  const spec = run.spec ?? {};
  const config = run.config ?? {};
  // The one precedence of every reader of a stored run (contract ran-workload.ts): the spec first.
  const ran = ranWorkloadOf(run);
  const id = ran.modelId ?? run.model;
  const seqLen = ran.seqLen;
  const microBatch = ran.microBatch;
  if (typeof id !== 'string' || !seqLen || !microBatch) return null;
  let model: string | ModelArch = id;
  try {
    strategyById(run.strategy);
  } catch {
    return null; // a custom strategy (or one since removed) says nothing to this model
  }
  try {
    resolveModel(id);
  } catch {
    // Not a preset: an imported config.json (`--model config.json`) travels in the spec as the whole
    // architecture, so its runs are evidence for that model like any preset's (before, the Phi-3 tune's
    // own trials never joined its calibration or memory evidence). A preset that no longer exists says nothing.
    const imported = ModelArchSchema.safeParse(spec.model);
    if (!imported.success) return null;
    model = imported.data;
  }
  const gradAccum = ran.gradAccum ?? 1;
  const effective = config.effectiveConfig ?? spec.dsConfig;
  const knobs = { ...knobsFromConfig(effective, spec.fsdp), ...(spec.knobs as ThroughputKnobs | undefined) };
  if (config.effectiveConfig) Object.assign(knobs, knobsFromConfig(config.effectiveConfig, spec.fsdp));
  let workload: Workload;
  try {
    workload = parseWorkload({
      model,
      seqLen,
      microBatch,
      gradAccum,
      gpus: ran.gpus,
      nodes: ran.nodes,
      precision: ran.precision === 'fp16' ? 'fp16' : 'bf16',
      activationCheckpointing: ran.activationCheckpointing ?? true,
      gradientClipping: finiteNumber(obj(effective)?.gradient_clipping),
    });
  } catch {
    return null; // a stored spec this version cannot read as a workload
  }
  return { strategyId: run.strategy, workload, knobs };
}

/** A completed run of history as a calibration sample, or null when it lacks what the model needs. */
export function sampleFromRun(run: StoredRunFacts, profile: HardwareProfile): CalibrationSample | null {
  if (!run.stepSeconds || run.stepSeconds <= 0) return null;
  const ran = storedRunWorkload(run);
  if (!ran) return null;
  return {
    runId: run.runId,
    strategyId: ran.strategyId,
    workload: ran.workload,
    profile,
    knobs: ran.knobs,
    measuredStepSeconds: run.stepSeconds,
  };
}
