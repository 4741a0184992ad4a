// What every DeepSpeed ZeRO mechanism shares: the ds_config skeleton and its common keys, the common
// knobs (overlap_comm, buckets, sub-groups, pinning) and how a config is read back into them, the
// stage-3 CPU share (whole sub-groups), the communication buckets, the ZeRO-3 hook cost and the host
// traffic of an optimizer stepped on the CPU. Each mechanism module composes these with what is its own.
import type { Knobs, Machine, StrategyPreset, Workload } from '../../../contract';
import { finiteNumber, globalBatch, worldSize } from '../../../contract';
import { DEFAULT_GRADIENT_CLIPPING, SEED_ZERO_KEYS } from '../config/config-defaults';
import { THROUGHPUT_CONSTANTS, type ThroughputKnobs } from '../model/throughput-constants';
import type { ConfigParts, JsonObject, KnobSearchSpace, MemoryContext, TimeContext, TimeTerms } from './types';

// The world size is the contract's (ran-workload.ts): one definition for the tuner and every reader.
export { worldSize };

/** The gradient_clipping a strategy runs with: SuperOffload 0.0 (to keep its overlap) unless overridden. */
export function effectiveGradientClipping(s: StrategyPreset, w: Workload): number {
  if (w.gradientClipping !== undefined) return w.gradientClipping;
  return s.superOffload ? 0.0 : DEFAULT_GRADIENT_CLIPPING;
}

/** overlap_comm, reduce_bucket_size, sub_group_size (stage 3) and pin_memory (any offload), defaults filled. */
export function zeroCommonKnobs(s: StrategyPreset, k: Knobs): Knobs {
  const out: Knobs = {
    overlapComm: k.overlapComm ?? SEED_ZERO_KEYS.overlap_comm,
    reduceBucketSize: k.reduceBucketSize ?? SEED_ZERO_KEYS.reduce_bucket_size,
  };
  if (s.stage === 3) out.subGroupSize = k.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size;
  if (s.offloadOptimizer !== 'none' || s.offloadParam !== 'none') out.pinMemory = k.pinMemory ?? true;
  return out;
}

/** A ds_config for the workload with the mechanism's offload blocks (`zeroExtras`) and top-level keys (`extras`). */
export function deepSpeedConfig(
  s: StrategyPreset,
  w: Workload,
  k: Knobs,
  zeroExtras: JsonObject = {},
  extras: JsonObject = {},
): JsonObject {
  const zero: JsonObject = {
    stage: s.stage,
    overlap_comm: k.overlapComm,
    contiguous_gradients: true,
    reduce_bucket_size: k.reduceBucketSize,
  };
  if (s.stage === 3) zero.sub_group_size = k.subGroupSize;
  Object.assign(zero, zeroExtras);
  const config: JsonObject = {
    train_batch_size: globalBatch(w),
    train_micro_batch_size_per_gpu: w.microBatch,
    gradient_accumulation_steps: w.gradAccum,
    optimizer: { type: 'AdamW', params: { lr: 1e-5, betas: [0.9, 0.999], eps: 1e-8, weight_decay: 0.0 } },
    gradient_clipping: effectiveGradientClipping(s, w),
    zero_optimization: zero,
    steps_per_print: 2147483647, // the runner prints its own per-step JSON lines
    wall_clock_breakdown: false,
  };
  if (w.precision === 'bf16') config.bf16 = { enabled: true };
  else config.fp16 = { enabled: true, loss_scale: 0, initial_scale_power: 16 };
  Object.assign(config, extras);
  return config;
}

/** `offload_optimizer` on the CPU: pinning, and the ratio when one is set. */
export function cpuOptimizerBlock(k: Knobs): JsonObject {
  const block: JsonObject = { device: 'cpu', pin_memory: k.pinMemory ?? true };
  if (k.ratio !== undefined) block.ratio = k.ratio;
  return block;
}

export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** The ZeRO keys every DeepSpeed mechanism has, and the offload_optimizer's ratio and pinning where present. */
export function readZeroKnobs(parts: ConfigParts): ThroughputKnobs {
  const knobs: ThroughputKnobs = {};
  const { zero, offloadOptimizer: off } = parts;
  if (!zero) return knobs;
  if (bool(zero.overlap_comm) !== undefined) knobs.overlapComm = bool(zero.overlap_comm);
  if (finiteNumber(zero.reduce_bucket_size)) knobs.reduceBucketSize = finiteNumber(zero.reduce_bucket_size);
  if (finiteNumber(zero.sub_group_size)) knobs.subGroupSize = finiteNumber(zero.sub_group_size);
  if (off) {
    if (finiteNumber(off.ratio) !== undefined) knobs.ratio = finiteNumber(off.ratio);
    if (bool(off.pin_memory) !== undefined) knobs.pinMemory = bool(off.pin_memory);
  }
  return knobs;
}

/** Pinned buffers beyond `ulimit -l` fail to register: then pin_memory false. */
export function lockedMemoryOk(machine: Machine): boolean {
  return (
    machine.memory.lockedMemoryUnlimited ||
    machine.memory.lockedMemoryLimitBytes === null ||
    machine.memory.lockedMemoryLimitBytes > 16 * 2 ** 30
  );
}

/** The search space every ZeRO mechanism starts from: pinning where something is offloaded, and overlap_comm. */
export function zeroKnobSpace(s: StrategyPreset, machine: Machine): KnobSearchSpace {
  const base: ThroughputKnobs = {};
  if (s.offloadOptimizer !== 'none' || s.offloadParam !== 'none') base.pinMemory = lockedMemoryOk(machine);
  base.overlapComm = SEED_ZERO_KEYS.overlap_comm;
  return { base, axes: [['overlapComm', [false, true]]] };
}

/**
 * Share of the optimizer stepped on the CPU at stage 3 with a CPU optimizer: the `ratio` knob, else
 * `defaultRatio`. DeepSpeed keeps whole sub-groups on the GPU — the first int((1 − ratio) × sub-groups)
 * of them (stage3.py) — so with `paramsPerRank` the share is the one the engine really gets: Llama-3.2-3B
 * in 4e8 sub-groups (9 of them) at ratio 0.9 keeps none on the GPU.
 */
export function stage3CpuShare(knobs: ThroughputKnobs | undefined, paramsPerRank: number | undefined, defaultRatio: number): number {
  const ratio = knobs?.ratio ?? defaultRatio;
  if (!paramsPerRank || ratio >= 1) return ratio;
  const groups = Math.max(1, Math.ceil(paramsPerRank / (knobs?.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size)));
  return 1 - Math.floor((1 - ratio) * groups + 1e-9) / groups;
}

/**
 * Communication buffers alive in backward. Stage 1/2: bf16 reduce bucket + fp32 reduction copy + an
 * all-gather bucket of the same size. Stage 3 without offload: the contiguous-gradients bucket (bf16)
 * and the parameter prefetch bucket (5e7 bf16); with offload the estimator's figure already holds the
 * bucket it knew (kept as calibrated). overlap_comm adds a second reduce bucket.
 */
export function zeroCommBytes(ctx: MemoryContext, offloaded: boolean): number {
  const { s, bucket, knobs } = ctx;
  return (s.stage === 3 ? (offloaded ? 6 * bucket + 2 * 5e7 : 2 * bucket + 2 * 5e7) : 8 * bucket) + (knobs.overlapComm ? 2 * bucket : 0);
}

/** The GPU share of the optimizer at ratio < 1 (stage 3): fp32 master, Adam m, v and the fp32 gradient. */
export function gpuOptimizerShare(ctx: MemoryContext): Record<string, number> {
  return ctx.r < 1 ? { gpuOptimizerShare: Math.round(((1 - ctx.r) * 16 * ctx.p.total) / ctx.G) } : {};
}

/** ZeRO-3's pre/post hooks gather, release and book-keep every parameter per pass (THROUGHPUT_CONSTANTS.zero3ParamPassSeconds). */
export function zero3HookSeconds(ctx: TimeContext): number {
  return ctx.p.total * ctx.passes * ctx.w.gradAccum * THROUGHPUT_CONSTANTS.zero3ParamPassSeconds;
}

/** One CPU Adam call, its copies and launches per sub-group of the CPU share (stage 3 with an offloaded optimizer). */
export function subGroupSeconds(ctx: TimeContext): number {
  return (
    Math.ceil((ctx.r * ctx.p.total) / ctx.G / (ctx.knobs.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size)) *
    THROUGHPUT_CONSTANTS.subGroupSeconds
  );
}

/** The GPU-side optimizer step on the 1 − ratio share (DeepSpeed's step over bf16/fp32 gradients, FusedAdam). */
export function gpuStepBytes(ctx: TimeContext): number {
  return ((1 - ctx.r) * ctx.p.total * THROUGHPUT_CONSTANTS.gpuStepBytesPerParam) / ctx.G;
}

/**
 * Host↔GPU traffic of a DeepSpeed optimizer stepped on the CPU. DeepSpeed casts gradients to fp32 on the
 * GPU and copies them to pinned host buffers (4 B/param of the CPU share, every micro step). Updated
 * parameters: ZeRO-1/2 cast fp32→bf16 on the CPU into a pinned bf16 buffer and copy it up (2 B, pinned);
 * ZeRO-3 and SuperOffload copy the fp32 partition into the bf16 GPU partition with a blocking copy_, which
 * torch converts on the CPU into a pageable temporary (2 B, pageable rate). The trainer casts (fp32 read +
 * bf16 write, 6 B) and step() unscales and clips every sub-group's fp32 gradient in place (`grad.mul_`,
 * stage3.py / stage_1_and_2.py unscale_and_clip_grads, SuperOffload's _step_without_clipping too) — in host
 * memory when the optimizer is offloaded, so the trainer's cores read and write it (8 B).
 */
export function offloadedOptimizerTraffic(ctx: TimeContext): Pick<TimeTerms, 'pinnedBytes' | 'pageableBytes' | 'trainerCopyBytes'> {
  const { r, G, s } = ctx;
  const P = ctx.p.total;
  const A = ctx.w.gradAccum;
  return {
    pinnedBytes: (4 * r * P * A) / G + (s.stage === 3 ? 0 : (2 * P) / G),
    pageableBytes: s.stage === 3 ? (2 * r * P) / G : 0,
    trainerCopyBytes: (6 * r * P) / G + (8 * r * P) / G,
  };
}

/** Overlaps of a ZeRO mechanism: host copies and collectives hide behind compute only with overlap_comm. */
export function zeroOverlaps(ctx: TimeContext): Pick<TimeTerms, 'cpuStepOverlap' | 'streamOverlap' | 'commOverlap'> {
  const overlapComm = ctx.knobs.overlapComm ?? SEED_ZERO_KEYS.overlap_comm;
  return {
    cpuStepOverlap: ctx.s.cpuStepOverlap,
    streamOverlap: overlapComm ? ctx.s.transferOverlap : 0,
    commOverlap: overlapComm ? ctx.s.commOverlap : 0,
  };
}

/** ZeRO-3 shards the parameters; ZeRO-1/2 keep a whole copy on every GPU. */
export const zeroCollectives = (s: StrategyPreset): TimeTerms['collectives'] => (s.stage === 3 ? 'sharded' : 'replicated');

/**
 * A step with nothing of its own: the base every mechanism's time() fills in, each with its own
 * collectives. Every key is here, collectives too, so the step-time objects all share the template's
 * shape: a key added after the spread gave each mechanism's terms another shape and made the plan's
 * search about a third slower (bench/tuner-plan.ts).
 */
export const NO_TIME_TERMS: TimeTerms = {
  collectives: 'sharded',
  gpuStepBytes: 0,
  fetchSeconds: 0,
  pinnedBytes: 0,
  pageableBytes: 0,
  trainerCopyBytes: 0,
  workerCopyBytes: 0,
  cpuAdam: null,
  nvmeBytes: 0,
  cpuStepOverlap: 0,
  streamOverlap: 0,
  commOverlap: 0,
};

/** The CPU Adam of a DeepSpeed offload: DeepSpeedCPUAdam on every core of the node. */
export function deepSpeedCpuAdam(ctx: TimeContext): TimeTerms['cpuAdam'] {
  return { threads: Math.max(1, ctx.hw.physicalCores), rateFactor: 1 };
}
