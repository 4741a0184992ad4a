// What the machine said about memory: every stored run of this machine kind is a point — it ran
// (with the peak it allocated) or it ran out (cuda_oom / host_oom) — and the GPU memory model's error
// measured on the completed ones, per strategy. A plan reads it twice: a configuration measured (or
// implied by a measured neighbour) is judged by the measurement, not the model; and every verdict the
// model alone makes carries a band as wide as that strategy's measured error (the pick keeps
// headroom that covers its own error; a strategy without runs gets the worst error seen on the others, and
// never less than the error measured with whole models and machine kinds held out).
// Pure: points in, evidence out.
import type { Workload } from '../../../contract';
import { storedRunWorkload, type StoredRunFacts } from './calibrate';
import { estimateMemory } from './memory';
import { resolveModel } from '../catalogue/models';
import { countParams } from './params';
import { strategyById } from '../catalogue/presets';
import type { ThroughputKnobs } from './throughput';

export type MemoryOutcome = 'fits' | 'cuda_oom' | 'host_oom';

export interface MemoryPoint {
  runId: string;
  strategyId: string;
  workload: Workload;
  knobs: ThroughputKnobs;
  outcome: MemoryOutcome;
  /** Peak GPU bytes allocated (torch max_memory_allocated), per GPU; null where not recorded. */
  peakGpuBytes: number | null;
  peakHostBytes: number | null;
}

export interface MemoryBand {
  /** ± share of the predicted allocated GPU bytes. */
  relative: number;
  /** measured: the worst error over this strategy's runs; uncalibrated: no runs of it, the worst over the others. */
  source: 'measured' | 'uncalibrated';
  runs: number;
}

export interface MemoryEvidence {
  points: MemoryPoint[];
  bands: Record<string, MemoryBand>;
  uncalibrated: MemoryBand;
}

/** With no run at all to measure the model on: ±10% (the model's worst GPU error over the H200 sample runs, resources/samples/h200-*, was below that; stated, not measured here). */
export const UNCALIBRATED_BAND = 0.1;
/**
 * The least band of a strategy with no runs on this machine kind: the model's worst GPU peak allocated error
 * with the whole model and the machine kind held out — nothing in the memory model is fitted per run, so that is
 * its worst error over every stored run it was not built on: 6.48% (SuperOffload, Llama-3.2-1B seq 16384 on the
 * H200; `npx tsx bench/tuner-boundary.ts`, held to it by tests/unit/tuner/unseen-band.test.ts), rounded up to
 * 0.5%. The worst band of the strategies that have runs here can be far narrower: with it, ZeRO-Offload micro 25
 * of Phi-3-mini on an H100 reads "fits, ±3% (uncalibrated)", and it runs out of memory.
 */
export const UNSEEN_KIND_BAND = 0.065;
/** A band never narrower than this: repeats of one configuration differ by ~1% in peak allocated. */
export const BAND_FLOOR = 0.02;

export interface StoredRunOutcome extends Omit<StoredRunFacts, 'stepSeconds'> {
  status: string;
  errorClass: string | null;
  peakGpuBytes: number | null;
  peakHostBytes: number | null;
  /** The failure's message: a pre-flight refusal ("Pre-flight: need ~… (the plan's prediction)…") never ran. */
  errorMessage?: string | null;
}

/** A refusal by the runner's pre-flight check: the plan's own estimate against MemAvailable, nothing measured. */
const PREFLIGHT_REFUSAL = /^Pre-flight:/;

/** A stored run as a memory point: completed runs and out-of-memory failures; anything else says nothing about memory.
 *  A pre-flight refusal is not a point: counting it would let the model confirm itself. */
export function pointFromRun(run: StoredRunOutcome): MemoryPoint | null {
  if (run.status === 'failed' && PREFLIGHT_REFUSAL.test(run.errorMessage ?? '')) return null;
  const outcome: MemoryOutcome | null =
    run.status === 'completed'
      ? 'fits'
      : run.status === 'failed' && (run.errorClass === 'cuda_oom' || run.errorClass === 'host_oom')
        ? run.errorClass
        : null;
  if (!outcome) return null;
  const ran = storedRunWorkload(run);
  if (!ran) return null;
  return {
    runId: run.runId,
    strategyId: ran.strategyId,
    workload: ran.workload,
    knobs: ran.knobs,
    outcome,
    peakGpuBytes: run.peakGpuBytes,
    peakHostBytes: run.peakHostBytes,
  };
}

/** The model's peak allocated GPU bytes for a point's configuration. */
export function predictedAllocated(p: Pick<MemoryPoint, 'strategyId' | 'workload' | 'knobs'>): number {
  const model = resolveModel(p.workload.model);
  const mem = estimateMemory(strategyById(p.strategyId), model, countParams(model), p.workload, false, p.knobs);
  return mem.gpuAllocatedBytes ?? mem.gpuBytes;
}

/** Signed relative error of the predicted peak allocated GPU bytes ((predicted − measured) / measured), or null without a measured peak. */
export function gpuMemoryError(p: MemoryPoint): number | null {
  if (p.outcome !== 'fits' || !p.peakGpuBytes) return null;
  return (predictedAllocated(p) - p.peakGpuBytes) / p.peakGpuBytes;
}

export function memoryEvidence(points: MemoryPoint[]): MemoryEvidence {
  const errors = new Map<string, number[]>();
  for (const p of points) {
    const e = gpuMemoryError(p);
    if (e === null) continue;
    errors.set(p.strategyId, [...(errors.get(p.strategyId) ?? []), Math.abs(e)]);
  }
  const bands: Record<string, MemoryBand> = {};
  for (const [id, es] of errors) bands[id] = { relative: Math.max(BAND_FLOOR, ...es), source: 'measured', runs: es.length };
  const worst = Object.values(bands).map((b) => b.relative);
  const uncalibrated: MemoryBand = {
    relative: worst.length ? Math.max(UNSEEN_KIND_BAND, ...worst) : UNCALIBRATED_BAND,
    source: 'uncalibrated',
    runs: 0,
  };
  return { points, bands, uncalibrated };
}

export function bandFor(evidence: MemoryEvidence | undefined, strategyId: string): MemoryBand {
  return evidence?.bands[strategyId] ?? evidence?.uncalibrated ?? { relative: UNCALIBRATED_BAND, source: 'uncalibrated', runs: 0 };
}

/** A workload's model as one key: a preset id, or a config's id. */
export function modelKey(w: Pick<Workload, 'model'>): string {
  return typeof w.model === 'string' ? w.model : w.model.id;
}

/**
 * Same configuration in everything memory depends on, the tokens per micro batch (micro batch × sequence
 * length) aside. The sequence length is left out on purpose: at equal tokens per micro batch a run's peak
 * is the same whatever the split — Llama-3.2-3B seq 2048 micro 8 / seq 4096 micro 4 (ZeRO-1, H100) both
 * 68.44 GiB, micro 6 / micro 3 (ZeRO-3, H100) both 68.55, micro 16 / micro 8 (ZeRO-3 offload r0.1, H200)
 * 101.76 / 101.78 (resources/samples) — as the model has it (activations and logits scale with tokens;
 * attention through SDPA holds no seq² matrix).
 */
function sameShape(a: MemoryPoint, strategyId: string, w: Workload, knobs: ThroughputKnobs): boolean {
  const ratio = (k: ThroughputKnobs) => k.ratio ?? null;
  return (
    a.strategyId === strategyId &&
    modelKey(a.workload) === modelKey(w) &&
    a.workload.gpus === w.gpus &&
    a.workload.nodes === w.nodes &&
    a.workload.precision === w.precision &&
    a.workload.activationCheckpointing === w.activationCheckpointing &&
    ratio(a.knobs) === ratio(knobs) &&
    (a.knobs.reshardAfterForward ?? true) === (knobs.reshardAfterForward ?? true)
  );
}

export interface MeasuredFit {
  outcome: MemoryOutcome;
  point: MemoryPoint;
  /** The point is this exact micro batch and sequence length (else a neighbour that implies it: one with
   *  more tokens per micro batch that ran, or fewer that ran out). */
  exact: boolean;
}

/** Tokens per micro batch: what a configuration's activation and logit memory scale with. */
export function microTokens(w: Pick<Workload, 'microBatch' | 'seqLen'>): number {
  return w.microBatch * w.seqLen;
}

/**
 * What the machine already said about this configuration: an out-of-memory run with as many tokens per
 * micro batch or fewer (memory grows with them) says it does not fit; a completed run with as many or more
 * says it does — at any sequence length (sameShape: Llama-3.1-8B seq 4096 micro 2 measures what seq 2048
 * micro 4 will). Where both exist the out-of-memory one wins: the configuration sits on the boundary, and
 * a pick must not.
 */
export function measuredFit(
  evidence: MemoryEvidence | undefined,
  strategyId: string,
  w: Workload,
  knobs: ThroughputKnobs,
): MeasuredFit | null {
  if (!evidence) return null;
  let oom: MeasuredFit | null = null;
  let ran: MeasuredFit | null = null;
  const tokens = microTokens(w);
  const exact = (p: MemoryPoint) => p.workload.microBatch === w.microBatch && p.workload.seqLen === w.seqLen;
  for (const p of evidence.points) {
    if (!sameShape(p, strategyId, w, knobs)) continue;
    const t = microTokens(p.workload);
    // the nearest on each side; at equal tokens a run of this very sequence length is the one named
    const nearer = (best: MeasuredFit | null, closer: boolean) => !best || closer || (t === microTokens(best.point.workload) && exact(p));
    if (p.outcome !== 'fits' && t <= tokens && nearer(oom, !!oom && t > microTokens(oom.point.workload)))
      oom = { outcome: p.outcome, point: p, exact: exact(p) };
    if (p.outcome === 'fits' && t >= tokens && nearer(ran, !!ran && t < microTokens(ran.point.workload)))
      ran = { outcome: 'fits', point: p, exact: exact(p) };
  }
  return oom ?? ran;
}
