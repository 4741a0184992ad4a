// Step time and model TFLOPS of one strategy × workload × knobs on a hardware profile. Every term
// is a time per optimizer step for one GPU (all GPUs symmetric), built from what the engine really
// does (DeepSpeed 0.19 stage_1_and_2.py / stage3.py / superoffload/, torch FSDP2): which bytes
// cross which link (pinned or pageable), which host copies and casts run on how many cores, which
// optimizer steps where, and which of it hides behind compute. docs/tuner-model.md states the
// terms and the source of every constant.
import type { HardwareProfile, ModelArch, Prediction, StrategyPreset, Workload } from '../../../contract';
import { perSampleFlops, tokensPerStep, worldSize } from '../../../contract';
import { SEED_ZERO_KEYS } from '../config/config-defaults';
import { mechanismOf } from '../mechanisms';
import { probedMicroSeconds } from './kernels';
import type { ParamCount } from './params';
import { cpuAdamRate, rateAtThreads } from '../catalogue/profile';

/**
 * Efficiency factors the calibration fits (1 = the uncalibrated model); each scales one physical
 * term, so a fitted value reads as "this machine does X at 1/f of the modelled rate".
 */
export interface EfficiencyFactors {
  /** GPU compute (1/f = share of the modelled matmul efficiency reached). */
  compute: number;
  /** ZeRO-3 / FSDP2 per-layer gather and release cost (hooks, partition bookkeeping). */
  fetch: number;
  /** GPU↔GPU collectives. */
  comm: number;
  /** Pinned host↔GPU copies. */
  transfer: number;
  /** Pageable host→GPU copies (DeepSpeed's blocking fp32→bf16 parameter copy casts on the CPU). */
  pageable: number;
  /** Host memory copies and casts (SuperOffload's inter-process copies, fp32→bf16 casts). */
  hostCopy: number;
  /** Exposed CPU optimizer step (1/f = effective share of the measured CPU Adam rate). */
  cpuAdam: number;
  nvme: number;
}
export const FACTOR_KEYS = ['compute', 'fetch', 'comm', 'transfer', 'pageable', 'hostCopy', 'cpuAdam', 'nvme'] as const;
export type FactorKey = (typeof FACTOR_KEYS)[number];
export const UNIT_FACTORS: EfficiencyFactors = {
  compute: 1,
  fetch: 1,
  comm: 1,
  transfer: 1,
  pageable: 1,
  hostCopy: 1,
  cpuAdam: 1,
  nvme: 1,
};

/** Fill factors of an older/partial shape (missing keys = 1). */
export function completeFactors(f?: Partial<EfficiencyFactors>): EfficiencyFactors {
  return { ...UNIT_FACTORS, ...(f ?? {}) };
}

export { FSDP_CPU_ADAM_IMPL_DEFAULT, THROUGHPUT_CONSTANTS, type ThroughputKnobs } from './throughput-constants';
import { THROUGHPUT_CONSTANTS, type ThroughputKnobs } from './throughput-constants';

/** docs/engine-facts.md (finetune_zero3.py estimate_transformer_tflops): per sample, c = 4 with checkpointing else 3.
 *  N is the parameters a token computes (`active`: a Mixture-of-Experts model's top-k experts, not all). */
export function flopsPerSample(p: ParamCount, m: ModelArch, seqLen: number, checkpointing: boolean): number {
  return perSampleFlops({ params: p.active, layers: m.numLayers, hidden: m.hiddenSize, seqLen, checkpointing });
}

/**
 * What the GPU really executes per sample (not the reporting formula above): the block projections
 * 2·N_block·s per pass (c passes: forward, recompute with checkpointing, backward ×2), the LM head 2·V·h·s
 * three times (outside the checkpointed blocks; the embedding lookup is no matmul), and causal attention —
 * SDPA with is_causal (transformers' classes, as the runner builds them: docs/models.md): 2·s²·q per layer forward (half of the full s × s product), backward
 * 2.5× forward (FlashAttention-2's five products against two), recomputed once more with checkpointing.
 */
export function executedFlops(p: ParamCount, m: ModelArch, seqLen: number, checkpointing: boolean): { matmul: number; attention: number } {
  const c = checkpointing ? 4 : 3;
  const head = m.vocabSize * m.hiddenSize;
  // A Mixture-of-Experts token runs only its routed experts' projections: the active count.
  const blocks = Math.max(0, p.active - p.embedding - (m.tieEmbeddings ? 0 : head));
  const q = m.numHeads * m.headDim;
  const attnForward = 2 * seqLen * seqLen * q * m.numLayers;
  return { matmul: 2 * c * blocks * seqLen + 2 * 3 * head * seqLen, attention: attnForward * (checkpointing ? 4.5 : 3.5) };
}

/** Seconds of GPU work of one micro batch: matmuls, attention and the memory-bound element-wise ops and loss. */
export function microBatchSeconds(
  p: ParamCount,
  m: ModelArch,
  w: Pick<Workload, 'seqLen' | 'microBatch' | 'activationCheckpointing'>,
  matmulTflops: number,
): number {
  if (!(matmulTflops > 0)) return Infinity;
  // the workload's own layer and head, timed on this GPU (kernels.ts): no efficiency assumed
  if (p.kernels) return probedMicroSeconds(p.kernels, w.microBatch);
  const C = THROUGHPUT_CONSTANTS;
  const tokens = w.seqLen * w.microBatch;
  const f = executedFlops(p, m, w.seqLen, w.activationCheckpointing);
  const rate = matmulTflops * 1e12;
  const mm = (w.microBatch * f.matmul) / (rate * C.matmulEfficiency * (tokens / (tokens + C.tokensHalf)));
  const attn = (w.microBatch * f.attention) / (rate * C.attentionEfficiency);
  const q = m.numHeads * m.headDim;
  const kv = m.numKvHeads * m.headDim;
  const E = C.elementwiseBytes;
  const passes = w.activationCheckpointing ? 4 : 3;
  const perToken =
    passes * m.numLayers * (E.h * m.hiddenSize + E.q * q + E.kv * kv + E.I * m.intermediateSize) + C.lossBytesPerLogit * m.vocabSize;
  return mm + attn + (tokens * perToken) / C.gpuMemoryBytesPerSecond;
}

export const TFLOPS_FORMULA =
  'TFLOPS per GPU = micro × accumulation × (2·c·N·s + 4·c·L·h·s²) / step_seconds / 1e12, c = 4 with activation checkpointing else 3 (counts recomputation, not MFU); aggregate = per GPU × GPUs';

export interface ThroughputInputs {
  strategy: StrategyPreset;
  model: ModelArch;
  params: ParamCount;
  workload: Workload;
  profile: HardwareProfile;
  /** SuperOffload's cpuadam_cores_perc (knobs.cpuadamCoresPerc wins when set). */
  cpuadamCoresPerc: number;
  knobs?: ThroughputKnobs;
}

/** Phase times (seconds per optimizer step, before overlap) and the exposed share of each. */
export interface PhaseTimes {
  compute: number;
  fetch: number;
  comm: number;
  transfer: number;
  pageable: number;
  hostCopy: number;
  cpuAdam: number;
  nvme: number;
  /** Share of each phase that is exposed (not hidden behind compute), 0..1. */
  exposed: Record<FactorKey, number>;
  /** The part of the CPU step that can never hide (last sub-group), seconds. */
  cpuTail: number;
  /** The compute term is the workload's own kernels timed on this GPU (kernels.ts), not the catalogue's
   *  efficiencies: a calibrated compute factor — fitted against those efficiencies — does not scale it. */
  computeMeasured?: boolean;
}

/**
 * Share of the optimizer states stepped on the CPU (0 none, 1 all), as the strategy's mechanism gets it:
 * the `ratio` knob at stage 3 (SuperOffload's default 0.9), in whole sub-groups where `paramsPerRank` is
 * known (mechanisms/zero-common.ts stage3CpuShare).
 */
export function cpuRatio(s: StrategyPreset, knobs?: ThroughputKnobs, paramsPerRank?: number): number {
  return mechanismOf(s).cpuShare(s, knobs, paramsPerRank);
}

const superchipOf = new WeakMap<HardwareProfile, boolean>();
function isSuperchip(hw: HardwareProfile): boolean {
  let v = superchipOf.get(hw);
  if (v === undefined) superchipOf.set(hw, (v = /gh200|gb200|mi300a/i.test(hw.gpuName ?? '') || /c2c/i.test(hw.sources.hostLink ?? '')));
  return v;
}

export function pageableRate(hw: HardwareProfile): number {
  if (hw.hostLinkPageableBytesPerSecond) return hw.hostLinkPageableBytesPerSecond;
  return hw.hostLinkBytesPerSecond * (isSuperchip(hw) ? THROUGHPUT_CONSTANTS.pageableShare.c2c : THROUGHPUT_CONSTANTS.pageableShare.pcie);
}

const copyRateOf = (p: { bytesPerSecond: number }) => p.bytesPerSecond;

/**
 * Host memory copy rate (read + write bytes/s) of `cores` cores. Measured by thread count where the
 * measurement swept threads (on the H200 host 8 of 16 threads drew 88% of the bandwidth: a few cores
 * nearly saturate it), interpolated from the origin to the first point and between points, the
 * whole-machine figure as the cap; else the measured total shared per core (no better assumption).
 */
export function hostCopyRate(hw: HardwareProfile, cores: number): number {
  const all = Math.max(1, hw.physicalCores);
  const c = Math.min(all, Math.max(1, cores));
  const points = hw.hostMemoryByThreads;
  if (points?.length) {
    const last = points[points.length - 1];
    const rate = rateAtThreads(points, c, copyRateOf);
    return c > last.threads ? Math.max(rate, hw.hostMemoryBytesPerSecond) : Math.min(rate, hw.hostMemoryBytesPerSecond);
  }
  return (hw.hostMemoryBytesPerSecond * c) / all;
}

/**
 * The step's phases. The strategy's mechanism (mechanisms/) says what its step does — bytes of GPU
 * step traffic, hook seconds, bytes over the host link (pinned, pageable), host copies by the trainer and
 * by a worker, its CPU optimizer, NVMe bytes, the shares that hide — and this skeleton, the same for
 * every mechanism, turns them into seconds on the profile's measured rates and sets what stays exposed.
 */
export function phaseTimes(x: ThroughputInputs): PhaseTimes {
  const { strategy: s, model: m, params: p, workload: w, profile: hw } = x;
  const knobs = x.knobs ?? {};
  const G = worldSize(w);
  const A = w.gradAccum;
  const C = THROUGHPUT_CONSTANTS;
  const mechanism = mechanismOf(s);
  const r = mechanism.cpuShare(s, knobs, p.total / G);
  const perc = knobs.cpuadamCoresPerc ?? x.cpuadamCoresPerc;
  const t = mechanism.time({ s, p, w, hw, knobs, r, G, passes: w.activationCheckpointing ? 3 : 2, perc });

  const gpuStep = t.gpuStepBytes / C.gpuMemoryBytesPerSecond;
  const compute = hw.matmulTflops > 0 ? A * microBatchSeconds(p, m, w, hw.matmulTflops) + gpuStep : Infinity;

  // GPU↔GPU collectives, bf16, as the mechanism moves them (TimeTerms.collectives)
  let comm = 0;
  if (G > 1) {
    const ring = (2 * p.total * (G - 1)) / G;
    const bytes = t.collectives === 'sharded' ? 3 * ring * A : ring * (A + 1);
    const bw = w.nodes > 1 ? Math.min(hw.peerLinkBytesPerSecond, hw.interNodeBytesPerSecond / w.gpus) : hw.peerLinkBytesPerSecond;
    comm = bytes / (bw * C.collectiveEfficiency);
  }

  const pinnedRate = knobs.pinMemory === false ? pageableRate(hw) : hw.hostLinkBytesPerSecond;
  const transfer = t.pinnedBytes / (pinnedRate * C.transferEfficiency);
  const pageable = t.pageableBytes / (pageableRate(hw) * C.transferEfficiency);

  // A worker's copies run on its threads. The trainer's run on every core: SuperOffload splits the cores
  // by process affinity (superoffload_utils.py _set_cpu_affinity: psutil cpu_affinity on the trainer's pid,
  // which Linux applies to its main thread alone), so torch's intra-op pool, started before the split,
  // keeps every core and the trainer's casts and copies draw the host's whole bandwidth. The H200 cores
  // sweep agrees — at cpuadam_cores_perc 0.9 (int(0.1 × 16) = 1 trainer core) ratio 0.5 took 2.47 s, where
  // one core would need 1.8 s for the cast and the clip alone.
  const cores = Math.max(1, hw.physicalCores);
  const trainerCores = Math.max(1, Math.floor(cores / w.gpus));
  const workerThreads = t.cpuAdam?.threads ?? cores;
  const hostCopy =
    (t.trainerCopyBytes * w.gpus) / hostCopyRate(hw, trainerCores * w.gpus) +
    (t.workerCopyBytes * w.gpus) / hostCopyRate(hw, workerThreads);

  // the CPU optimizer on this node's share; the last sub-group can only start once backward ends
  let cpuAdam = 0;
  let cpuTail = 0;
  if (t.cpuAdam) {
    const nodeParams = (p.total / w.nodes) * r;
    cpuAdam = nodeParams / (cpuAdamRate(hw, t.cpuAdam.threads) * t.cpuAdam.rateFactor);
    const subGroup = knobs.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size;
    cpuTail = nodeParams > 0 ? Math.min(cpuAdam, (cpuAdam * subGroup * w.gpus) / nodeParams) : 0;
  }
  const nvme = t.nvmeBytes / hw.diskBytesPerSecond;

  // The CPU step overlaps the last micro step's backward: the worker steps each sub-group as its gradients
  // complete (superoffload_stage3.py partition_grads), while backward goes on — its GPU compute and the gradient
  // copies the trainer waits on (the exposed transfer). The H100 A/B of one spec with gradient_clipping 0.0 and 1.0
  // (resources/samples/h100-superoffload-clip: clipping moves the whole CPU step into step()) measured what that
  // overlap hides: step() 1.05 s shorter, backward 0.28 s longer — most of the CPU step, not the little a host
  // memory bus shared with the Adam would leave (the H200 probe's long backward was the gradient copies, which
  // the clipped run has too). cpuStepOverlap (the catalogue's 0.9) is the share that hides.
  const backwardShare = w.activationCheckpointing ? 3 / 4 : 2 / 3;
  const backwardCompute = hw.matmulTflops > 0 ? ((compute - gpuStep) / A) * backwardShare : 0;
  const backwardLast = backwardCompute + (transfer * (1 - t.streamOverlap)) / A;
  const hideable = Math.min(cpuAdam - cpuTail, backwardLast * t.cpuStepOverlap);
  const cpuExposed = cpuAdam > 0 ? (cpuAdam - Math.max(0, hideable)) / cpuAdam : 0;

  return {
    compute,
    fetch: t.fetchSeconds,
    comm,
    transfer,
    pageable,
    hostCopy,
    cpuAdam,
    nvme,
    exposed: {
      compute: 1,
      fetch: 1,
      comm: 1 - t.commOverlap,
      transfer: 1 - t.streamOverlap,
      pageable: 1,
      hostCopy: 1,
      cpuAdam: cpuExposed,
      nvme: 1 - s.transferOverlap * 0.5,
    },
    cpuTail,
    ...(p.kernels ? { computeMeasured: true } : {}),
  };
}

/** Exposed seconds of each factor's term (what a factor multiplies). */
export function exposedTerms(t: PhaseTimes): Record<FactorKey, number> {
  const out = {} as Record<FactorKey, number>;
  for (const key of FACTOR_KEYS) out[key] = t[key] * t.exposed[key];
  return out;
}

const TERM_NAMES: Record<FactorKey, string> = {
  compute: 'compute',
  fetch: 'fetchExposed',
  comm: 'commExposed',
  transfer: 'transferExposed',
  pageable: 'pageableExposed',
  hostCopy: 'hostCopyExposed',
  cpuAdam: 'cpuAdamExposed',
  nvme: 'nvmeExposed',
};

/** Step seconds alone (the search's inner loop): Σ factor × exposed term. */
export function stepSecondsOnly(t: PhaseTimes, f?: Partial<EfficiencyFactors>): number {
  let sum = 0;
  for (const key of FACTOR_KEYS) sum += t[key] * t.exposed[key] * factorOf(t, f, key);
  return sum;
}

/** The factor that scales a term: none on a compute term measured by the kernel probe. */
function factorOf(t: PhaseTimes, f: Partial<EfficiencyFactors> | undefined, key: FactorKey): number {
  return key === 'compute' && t.computeMeasured ? 1 : (f?.[key] ?? 1);
}

/** Step seconds from phase times and (calibrated) efficiency factors: each factor scales its term. */
export function stepSecondsFrom(t: PhaseTimes, f?: Partial<EfficiencyFactors>): { seconds: number; terms: Record<string, number> } {
  const terms: Record<string, number> = {};
  let seconds = 0;
  for (const key of FACTOR_KEYS) {
    const v = t[key] * t.exposed[key] * factorOf(t, f, key);
    terms[TERM_NAMES[key]] = v;
    seconds += v;
  }
  return { seconds, terms };
}

/** Tokens per second of a step time (0 where nothing is predicted). */
export function tokensPerSecondOf(w: Workload, seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? tokensPerStep(w) / seconds : 0;
}

export function predictFrom(x: ThroughputInputs, factors?: Partial<EfficiencyFactors>): Prediction {
  const t = phaseTimes(x);
  const { seconds, terms } = stepSecondsFrom(t, factors);
  const w = x.workload;
  const G = worldSize(w);
  const flops = w.microBatch * w.gradAccum * flopsPerSample(x.params, x.model, w.seqLen, w.activationCheckpointing);
  // no GPU (matmul rate 0): no prediction — every figure 0 rather than Infinity, which JSON cannot carry
  const finite = Number.isFinite(seconds) && seconds > 0;
  const clean = (v: number) => (finite && Number.isFinite(v) ? v : 0);
  const tflopsPerGpu = finite ? flops / seconds / 1e12 : 0;
  const raw = Object.fromEntries(FACTOR_KEYS.map((key) => [`${key}Raw`, t[key]]));
  return {
    stepSeconds: finite ? seconds : 0,
    tflopsPerGpu,
    tflopsAggregate: tflopsPerGpu * G,
    tokensPerSecond: finite ? tokensPerStep(w) / seconds : 0,
    terms: Object.fromEntries(Object.entries({ ...terms, ...raw }).map(([key, v]) => [key, clean(v)])),
    formula: TFLOPS_FORMULA,
    calibrated: !!factors && factors !== UNIT_FACTORS,
  };
}
