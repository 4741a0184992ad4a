// Step time and model TFLOPS of one strategy × workload × knobs on a hardware profile. Every term
// is a time per optimizer step for one GPU (all GPUs symmetric), built from what the engine really
// does (DeepSpeed 0.19 stage_1_and_2.py / stage3.py / superoffload/, torch FSDP2): which bytes
// cross which link (pinned or pageable), which host copies and casts run on how many cores, which
// optimizer steps where, and which of it hides behind compute. docs/tuner-model.md states the
// terms and the source of every constant.
import type { HardwareProfile, ModelArch, Prediction, StrategyPreset, Workload } from '../../contract';
import { effectiveGradientClipping, SEED_ZERO_KEYS, SUPER_OFFLOAD_RATIO } from './ds-config';
import type { ParamCount } from './params';
import { cpuAdamRate, rateAtThreads } from './profile';

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
export const UNIT_FACTORS: EfficiencyFactors = { compute: 1, fetch: 1, comm: 1, transfer: 1, pageable: 1, hostCopy: 1, cpuAdam: 1, nvme: 1 };

/** Fill factors of an older/partial shape (missing keys = 1). */
export function completeFactors(f?: Partial<EfficiencyFactors>): EfficiencyFactors {
  return { ...UNIT_FACTORS, ...(f ?? {}) };
}

export const THROUGHPUT_CONSTANTS = {
  /**
   * Share of the matmul ceiling the model's projections (and LM head) run at, counted on the FLOPs they
   * really execute (`executedFlops`). 0.9: the H200 probe (2026-12-04, bench/device/step-phases-probe.py,
   * resources/samples/h200-step-phases-probe/): one MLP up-projection at each sample workload's shape ran
   * at 661 / 755 / 768 TFLOPS (Llama-3.1-8B micro 1 × 4096, 3.2-3B 8 × 2048, 3.2-1B 2 × 16384) against
   * the catalogued 796; calibration refits the compute term per machine.
   */
  matmulEfficiency: 0.9,
  /**
   * Share of the matmul ceiling causal attention (torch SDPA → cuDNN flash kernels, bf16) runs at,
   * counted on its causal FLOPs (forward 2·s·q per token per layer, backward 2.5× forward). 0.5: the
   * same probe — SDPA forward + backward at the three workloads' shapes ran at 306 / 374 / 445 TFLOPS.
   */
  attentionEfficiency: 0.5,
  /** Tokens per micro batch at which matmul efficiency is half its best (small micro batches under-fill the GPU). Assumption. */
  tokensHalf: 256,
  /** Bus-bandwidth share of a link in ring collectives (NCCL bus bandwidth ≈ 80% of link). Assumption. */
  collectiveEfficiency: 0.8,
  /** Share of the measured pinned copy rate a copy stream reaches inside a step. Assumption. */
  transferEfficiency: 0.9,
  /**
   * DeepSpeed ZeRO-3 cost per parameter per pass (forward, recompute, backward) of the pre/post hooks'
   * gather, release and partition bookkeeping, seconds. On one GPU the gather moves nothing
   * (partition_parameters.py `_no_gather_coalesced`), yet the H200 probe's ZeRO-3 passes ran 0.02–0.26 s
   * longer than the same model's plain-torch passes, growing with the layers' size (1.75 ms per layer pass
   * for Llama-3.2-1B's 61 M-parameter layers, 4.8 ms for Llama-3.1-8B's 218 M): the cost follows the
   * parameters, not the layer count. 11.8 ps: the H200 tuned sweep (2026-12-03) — ZeRO-3 offload at micro 8,
   * effective ratio 0.11 / 0.56 / 1, 1.43 / 2.46 / 3.76 s: the ratio → 0 intercept is 0.1 s above compute
   * over 3 passes of Llama-3.2-3B's 2.82 B block parameters. Calibration fits its factor per strategy.
   */
  zero3ParamPassSeconds: 11.8e-12,
  /** Per sub-group cost of a ZeRO-3 CPU-offload step (one CPU Adam call, its copies and launches), seconds. Assumption. */
  subGroupSeconds: 0.01,
  /** FSDP2's per-layer hooks (C++ all-gather/reshard, no Python bookkeeping per parameter) as a share of ZeRO-3's. Assumption. */
  fsdpLayerFactor: 1 / 3,
  /**
   * Pageable host→GPU rate as a share of pinned where nothing was measured: PCIe 0.11 (H200 host:
   * 6.25 GB/s pageable vs 55.1 pinned, native-measure.json); NVLink-C2C 0.5 (coherent memory: a
   * superchip reads pageable memory over C2C; assumption, GH200 not measured here).
   */
  pageableShare: { pcie: 0.11, c2c: 0.5 },
  /** torch AdamW on CPU without fused/foreach (the per-tensor loop) vs the fused kernel: H200 ceilings plain_t16 0.543 / fused_t16 3.799. */
  torchPlainAdamFactor: 0.143,
  /** torch fused CPU AdamW vs DeepSpeedCPUAdam: about the same rate (ENGINE.md: 4.5–4.8 vs 3.8–4.1 G params/s at 16 threads). */
  torchFusedAdamFactor: 0.93,
  /** Host memory bytes per parameter of one CPU Adam step (fp32 p, g, m, v read; p, m, v written). */
  cpuAdamBytesPerParam: 28,
  /** Cores the training process keeps per rank (kernel launches, Python) under SuperOffload. */
  minTrainingCoresPerRank: 2,
  /** GPU memory bandwidth for memory-bound kernels (element-wise ops, the optimizer step): 4.8 TB/s H200 datasheet × 0.7. Assumption where uncatalogued. */
  gpuMemoryBytesPerSecond: 3.3e12,
  /**
   * Bytes of GPU memory traffic per parameter of one DeepSpeed optimizer step on the GPU (no offload, or
   * the 1 − ratio share), from stage3.py / stage_1_and_2.py step(): the gradient norm in double precision
   * (`g.double().norm(2)`: bf16 read 2, fp64 write 8 and read 8), the flatten of the bf16 gradient
   * partition (2 + 2) and its cast to fp32 (2 + 4), unscale_and_clip_grads' `mul_` (4 + 4), FusedAdam
   * (fp32 p, g, m, v read 16, p, m, v written 12) and the fp32 → bf16 copy into the parameters (4 + 2): 70.
   */
  gpuStepBytesPerParam: 70,
  /**
   * Bytes of GPU memory traffic per parameter per micro step of DeepSpeed's gradient path without offload:
   * each bf16 gradient copied into the reduce bucket (`__add_grad_to_ipg_bucket` / stage 1-2's contiguous
   * buffer, 2 + 2), flattened for the (one-rank) reduce (2 + 2) and copied into its partition buffer
   * (`partition_grads` / `copy_grads_in_partition`, 2 + 2): 12.
   */
  gpuGradientCopyBytesPerParam: 12,
  /**
   * Bytes of element-wise GPU traffic per token per layer of one forward pass of the runner's Llama
   * block (resources/engine/model.py): two RMSNorms in fp32 (36·h each), two residual adds (6·h each),
   * rotary embeddings on q and k (≈ 20 B per element), the attention output's transpose copy (4·q), SiLU
   * and the gate product (10·I): 84h + 24q + 20kv + 10I. Recompute and backward: × (c − 1) more, c the
   * FLOP multiplier (4 with checkpointing, else 3).
   */
  elementwiseBytes: { h: 84, q: 24, kv: 20, I: 10 },
  /** Bytes per logit per token of the loss (model.py `_loss`: slice copy, fp32 upcast, log-softmax and their backward). */
  lossBytesPerLogit: 42,
} as const;

/** The settings the config is generated from, as far as the throughput model reads them (contract Knobs). */
export interface ThroughputKnobs {
  cpuadamCoresPerc?: number;
  ratio?: number;
  overlapComm?: boolean;
  reduceBucketSize?: number;
  subGroupSize?: number;
  pinMemory?: boolean;
  reshardAfterForward?: boolean;
  /** FSDP2 CPU offload: the runner steps torch AdamW with fused=True (else the per-tensor loop). */
  torchAdamFused?: boolean;
}

/** Whether the FSDP2 runner steps a fused CPU AdamW by default (resources/engine/fsdp_engine.py). */
export const FSDP_CPU_ADAM_FUSED_DEFAULT = true;

/** ENGINE.md (finetune_zero3.py estimate_transformer_tflops): per sample, c = 4 with checkpointing else 3. */
export function flopsPerSample(p: ParamCount, m: ModelArch, seqLen: number, checkpointing: boolean): number {
  const c = checkpointing ? 4 : 3;
  return 2 * c * p.total * seqLen + 4 * c * m.numLayers * m.hiddenSize * seqLen * seqLen;
}

/**
 * What the GPU really executes per sample (not the reporting formula above): the block projections
 * 2·N_block·s per pass (c passes: forward, recompute with checkpointing, backward ×2), the LM head 2·V·h·s
 * three times (outside the checkpointed blocks; the embedding lookup is no matmul), and causal attention —
 * SDPA with is_causal (model.py): 2·s²·q per layer forward (half of the full s × s product), backward
 * 2.5× forward (FlashAttention-2's five products against two), recomputed once more with checkpointing.
 */
export function executedFlops(p: ParamCount, m: ModelArch, seqLen: number, checkpointing: boolean): { matmul: number; attention: number } {
  const c = checkpointing ? 4 : 3;
  const head = m.vocabSize * m.hiddenSize;
  const blocks = Math.max(0, p.total - p.embedding - (m.tieEmbeddings ? 0 : head));
  const q = m.numHeads * m.headDim;
  const attnForward = 2 * seqLen * seqLen * q * m.numLayers;
  return { matmul: 2 * c * blocks * seqLen + 2 * 3 * head * seqLen, attention: attnForward * (checkpointing ? 4.5 : 3.5) };
}

/** Seconds of GPU work of one micro batch: matmuls, attention and the memory-bound element-wise ops and loss. */
export function microBatchSeconds(p: ParamCount, m: ModelArch, w: Pick<Workload, 'seqLen' | 'microBatch' | 'activationCheckpointing'>, matmulTflops: number): number {
  if (!(matmulTflops > 0)) return Infinity;
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
  const perToken = passes * m.numLayers * (E.h * m.hiddenSize + E.q * q + E.kv * kv + E.I * m.intermediateSize) + C.lossBytesPerLogit * m.vocabSize;
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
}

/**
 * Share of the optimizer states stepped on the CPU: the `ratio` knob (stage 3 CPU offload), SuperOffload's
 * default 0.9, else 1 / 0. DeepSpeed keeps whole sub-groups on the GPU — the first
 * int((1 − ratio) × sub-groups) of them (stage3.py) — so with `paramsPerRank` the share is the one the
 * engine really gets: Llama-3.2-3B in 4e8 sub-groups (9 of them) at ratio 0.9 keeps none on the GPU.
 */
export function cpuRatio(s: StrategyPreset, knobs?: ThroughputKnobs, paramsPerRank?: number): number {
  if (s.offloadOptimizer === 'none') return 0;
  if (!(s.stage === 3 && s.offloadOptimizer === 'cpu' && s.engine === 'deepspeed')) return 1;
  const ratio = knobs?.ratio ?? (s.superOffload ? SUPER_OFFLOAD_RATIO : 1);
  if (!paramsPerRank || ratio >= 1) return ratio;
  const groups = Math.max(1, Math.ceil(paramsPerRank / (knobs?.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size)));
  return 1 - Math.floor((1 - ratio) * groups + 1e-9) / groups;
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

export function phaseTimes(x: ThroughputInputs): PhaseTimes {
  const { strategy: s, model: m, params: p, workload: w, profile: hw } = x;
  const k = x.knobs ?? {};
  const P = p.total;
  const G = w.gpus * w.nodes;
  const A = w.gradAccum;
  const C = THROUGHPUT_CONSTANTS;
  const ds = s.engine === 'deepspeed';
  const r = cpuRatio(s, k, P / G);
  // the GPU-side optimizer step (no offload, or the 1 − ratio share kept on the GPU)
  const gpuAdam = (((1 - r) * P * C.gpuStepBytesPerParam) / G + (ds && s.offloadOptimizer === 'none' ? A * P * C.gpuGradientCopyBytesPerParam : 0)) / C.gpuMemoryBytesPerSecond;
  const compute = hw.matmulTflops > 0 ? A * microBatchSeconds(p, m, w, hw.matmulTflops) + gpuAdam : Infinity;

  // ZeRO-3 / FSDP2: per pass (forward, recompute, backward), hooks gather and release every parameter
  const passes = w.activationCheckpointing ? 3 : 2;
  let fetch = s.stage === 3 ? P * passes * A * C.zero3ParamPassSeconds * (ds ? 1 : C.fsdpLayerFactor) : 0;
  if (ds && s.stage === 3 && s.offloadOptimizer !== 'none') fetch += Math.ceil((r * P) / G / (k.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size)) * C.subGroupSeconds;

  // GPU↔GPU collectives, bf16: ZeRO-1/2 reduce gradients every micro step and all-gather updated
  // params once per step; ZeRO-3 / FSDP2 all-gather forward and backward and reduce-scatter every micro step.
  let comm = 0;
  if (G > 1) {
    const ring = (2 * P * (G - 1)) / G;
    const bytes = s.stage === 3 ? 3 * ring * A : ring * (A + 1);
    const bw = w.nodes > 1 ? Math.min(hw.peerLinkBytesPerSecond, hw.interNodeBytesPerSecond / w.gpus) : hw.peerLinkBytesPerSecond;
    comm = bytes / (bw * C.collectiveEfficiency);
  }

  // host↔GPU. DeepSpeed casts gradients to fp32 on the GPU and copies them to pinned host buffers
  // (4 B/param of the CPU share, every micro step). Updated parameters: ZeRO-1/2 cast fp32→bf16 on
  // the CPU into a pinned bf16 buffer and copy it up (2 B, pinned); ZeRO-3 and SuperOffload copy the
  // fp32 partition into the bf16 GPU partition with a blocking copy_, which torch converts on the CPU
  // into a pageable temporary (2 B, pageable rate). Parameter offload streams bf16 params per pass.
  // FSDP2 + CPUOffloadPolicy: fp32 shards up per unshard (forward, backward), fp32 grads down.
  const pinned = k.pinMemory === false ? pageableRate(hw) : hw.hostLinkBytesPerSecond;
  let pinnedBytes = 0;
  let pageableBytes = 0;
  let hostCopyBytesTrainer = 0; // host copies/casts done by the training process
  let hostCopyBytesWorker = 0; // done by SuperOffload's CPU Adam worker
  if (ds && s.offloadOptimizer !== 'none') {
    pinnedBytes += (4 * r * P * A) / G;
    if (s.stage === 3) pageableBytes += (2 * r * P) / G;
    else pinnedBytes += (2 * P) / G;
    hostCopyBytesTrainer += (6 * r * P) / G; // fp32 read + bf16 write of the cast
    // step() unscales and clips every sub-group's fp32 gradient in place (`grad.mul_(1 / combined_scale)`,
    // stage3.py / stage_1_and_2.py unscale_and_clip_grads, SuperOffload's _step_without_clipping too):
    // with the optimizer offloaded that gradient lives in host memory, so the trainer's cores read and write it
    hostCopyBytesTrainer += (8 * r * P) / G;
  }
  if (ds && s.offloadParam === 'cpu') pinnedBytes += (2 * 2 * P * A) / G;
  if (!ds && s.offloadOptimizer !== 'none') pinnedBytes += (4 * 2 * P * A + 4 * P * A) / G;
  if (s.superOffload) {
    // the worker copies each sub-group's fp32 gradient into its pinned buffer (superoffload_utils.py).
    // The updated partition comes back as the same shared storage, and torch's copy_ returns early
    // when source and destination are the same data (ATen Copy.cpp), so the trainer copies nothing back.
    hostCopyBytesWorker += (8 * r * P) / G;
  }
  const transfer = pinnedBytes / (pinned * C.transferEfficiency);
  const pageable = pageableBytes / (pageableRate(hw) * C.transferEfficiency);

  // CPU optimizer on this node's share, with the threads the strategy gives it
  const perc = k.cpuadamCoresPerc ?? x.cpuadamCoresPerc;
  const cores = Math.max(1, hw.physicalCores);
  const workerThreads = s.superOffload ? Math.max(1, Math.round(cores * perc)) : cores;
  // SuperOffload splits the cores by process affinity (superoffload_utils.py _set_cpu_affinity: psutil
  // cpu_affinity on the trainer's pid, which Linux applies to its main thread alone), so torch's intra-op
  // pool, started before the split, keeps every core: the trainer's casts and copies draw the host's whole
  // bandwidth. The H200 cores sweep agrees — at cpuadam_cores_perc 0.9 (int(0.1 × 16) = 1 trainer core)
  // ratio 0.5 took 2.47 s, where one core would need 1.8 s for the cast and the clip alone.
  const trainerCores = Math.max(1, Math.floor(cores / w.gpus));
  const hostCopy =
    (hostCopyBytesTrainer * w.gpus) / hostCopyRate(hw, trainerCores * w.gpus) + (hostCopyBytesWorker * w.gpus) / hostCopyRate(hw, workerThreads);
  let cpuAdam = 0;
  let cpuTail = 0;
  let cpuAdamRateUsed = 0;
  if (s.offloadOptimizer !== 'none') {
    const fused = k.torchAdamFused ?? FSDP_CPU_ADAM_FUSED_DEFAULT;
    const rate = cpuAdamRate(hw, workerThreads) * (ds ? 1 : fused ? C.torchFusedAdamFactor : C.torchPlainAdamFactor);
    const nodeParams = (P / w.nodes) * r;
    cpuAdamRateUsed = rate;
    cpuAdam = nodeParams / rate;
    // the last sub-group can only start once backward ends
    const subGroup = k.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size;
    cpuTail = nodeParams > 0 ? Math.min(cpuAdam, (cpuAdam * subGroup * w.gpus) / nodeParams) : 0;
  }

  // NVMe (per node, one drive): optimizer states read and written once per step; params read per pass
  let nvme = 0;
  if (s.offloadOptimizer === 'nvme') nvme += (24 * P) / w.nodes / hw.diskBytesPerSecond;
  if (s.offloadParam === 'nvme') nvme += (2 * 2 * P * A) / w.nodes / hw.diskBytesPerSecond;

  // Overlap. SuperOffload hands each sub-group to its CPU Adam worker as soon as its gradients are
  // complete (during backward), unless gradient clipping is on (DeepSpeed ≥ 0.18.9 then steps in
  // step()); the copy back, the cast and the parameter upload run after backward on any hardware.
  const clipping = effectiveGradientClipping(s, w) !== 0;
  // The worker's CPU Adam streams host memory (fp32 p, g, m, v read, p, m, v written: 28 B per parameter)
  // while backward's gradients land there too (pinned D2H copies, the worker's copy into its buffer) and
  // the trainer waits on each completed sub-group (superoffload_stage3.py partition_grads:
  // `current_stream().synchronize()`): only the host memory bandwidth the Adam leaves free lets backward go
  // on beside it. The H200 probe (3B, ratio 0.9, 8 Adam threads: 65% of the bus) measured backward 2.03 s
  // against 0.67 s of the same model's plain backward — the CPU step stretched it instead of hiding.
  const adamBusShare = cpuAdam > 0 && hw.hostMemoryBytesPerSecond > 0 ? Math.min(1, (C.cpuAdamBytesPerParam * cpuAdamRateUsed) / hw.hostMemoryBytesPerSecond) : 0;
  const cpuOverlap = s.superOffload && clipping ? 0 : s.cpuStepOverlap * (1 - adamBusShare);
  const backwardShare = w.activationCheckpointing ? 3 / 4 : 2 / 3;
  const backwardLast = hw.matmulTflops > 0 ? ((compute - gpuAdam) / A) * backwardShare : 0;
  const hideable = Math.min(cpuAdam - cpuTail, backwardLast * cpuOverlap);
  const cpuExposed = cpuAdam > 0 ? (cpuAdam - Math.max(0, hideable)) / cpuAdam : 0;
  // gradients stream down during backward on a side stream only with overlap_comm (ZeRO) or FSDP2's own streams
  const overlapComm = k.overlapComm ?? SEED_ZERO_KEYS.overlap_comm;
  // SuperOffload copies each sub-group's gradients to its pinned buffer as backward completes it,
  // whatever overlap_comm says (the fit of the H200 runs drove this term to its floor either way)
  const streamOverlap = ds && !s.superOffload ? (overlapComm ? s.transferOverlap : 0) : s.transferOverlap;
  const commExposed = 1 - (ds ? (overlapComm ? s.commOverlap : 0) : s.commOverlap);

  return {
    compute,
    fetch,
    comm,
    transfer,
    pageable,
    hostCopy,
    cpuAdam,
    nvme,
    exposed: { compute: 1, fetch: 1, comm: commExposed, transfer: 1 - streamOverlap, pageable: 1, hostCopy: 1, cpuAdam: cpuExposed, nvme: 1 - s.transferOverlap * 0.5 },
    cpuTail,
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
  for (const key of FACTOR_KEYS) sum += t[key] * t.exposed[key] * (f?.[key] ?? 1);
  return sum;
}

/** Step seconds from phase times and (calibrated) efficiency factors: each factor scales its term. */
export function stepSecondsFrom(t: PhaseTimes, f?: Partial<EfficiencyFactors>): { seconds: number; terms: Record<string, number> } {
  const terms: Record<string, number> = {};
  let seconds = 0;
  for (const key of FACTOR_KEYS) {
    const v = t[key] * t.exposed[key] * (f?.[key] ?? 1);
    terms[TERM_NAMES[key]] = v;
    seconds += v;
  }
  return { seconds, terms };
}

/** Tokens per second of a step time (0 where nothing is predicted). */
export function tokensPerSecondOf(w: Workload, seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? (w.seqLen * w.microBatch * w.gradAccum * w.gpus * w.nodes) / seconds : 0;
}

export function predictFrom(x: ThroughputInputs, factors?: Partial<EfficiencyFactors>): Prediction {
  const t = phaseTimes(x);
  const { seconds, terms } = stepSecondsFrom(t, factors);
  const w = x.workload;
  const G = w.gpus * w.nodes;
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
    tokensPerSecond: finite ? (w.seqLen * w.microBatch * w.gradAccum * G) / seconds : 0,
    terms: Object.fromEntries(Object.entries({ ...terms, ...raw }).map(([key, v]) => [key, clean(v)])),
    formula: TFLOPS_FORMULA,
    calibrated: !!factors && factors !== UNIT_FACTORS,
  };
}
