// ds_config.json generation: one config per strategy, from the strategy's data and the workload.
// The seed scenario's keys (DeepSpeedExamples finetune_llama-70b_4gpu.sh) are applied to every
// DeepSpeed strategy so strategies are compared on the same bucket sizes.
import type { Knobs, StrategyPreset, Workload } from '../../contract';

/** Keys of the seed scenario's generated config, shared by every DeepSpeed strategy. */
export const SEED_ZERO_KEYS = {
  overlap_comm: false,
  reduce_bucket_size: 4e8,
  sub_group_size: 4e8,
} as const;
export const SUPER_OFFLOAD_RATIO = 0.9;
export const DEFAULT_CPUADAM_CORES_PERC = 0.9;
export const DEFAULT_NVME_PATH = '/local_nvme';
/** DeepSpeed's default since v0.19.3; written explicitly so the config says what it does. */
export const DEFAULT_GRADIENT_CLIPPING = 1.0;

export interface FsdpBlock {
  cpuOffload: boolean;
  reshardAfterForward: boolean;
}

export function worldSize(w: Pick<Workload, 'gpus' | 'nodes'>): number {
  return w.gpus * w.nodes;
}

/** The gradient_clipping a strategy runs with: SuperOffload 0.0 (to keep its overlap) unless overridden. */
export function effectiveGradientClipping(s: StrategyPreset, w: Workload): number {
  if (w.gradientClipping !== undefined) return w.gradientClipping;
  return s.superOffload ? 0.0 : DEFAULT_GRADIENT_CLIPPING;
}

/** The knobs a config is generated from, with the generator's defaults filled in for this strategy
 *  (SuperOffload: cpuadam_cores_perc and ratio; FSDP2: reshardAfterForward). A number is the old
 *  form: SuperOffload's cpuadam_cores_perc. */
export function resolveKnobs(s: StrategyPreset, w: Workload, knobs: Knobs | number = {}): Knobs {
  const k: Knobs = typeof knobs === 'number' ? { cpuadamCoresPerc: knobs } : { ...knobs };
  if (s.engine === 'fsdp2') return { reshardAfterForward: k.reshardAfterForward ?? true };
  const out: Knobs = {
    overlapComm: k.overlapComm ?? SEED_ZERO_KEYS.overlap_comm,
    reduceBucketSize: k.reduceBucketSize ?? SEED_ZERO_KEYS.reduce_bucket_size,
  };
  if (s.stage === 3) out.subGroupSize = k.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size;
  if (s.offloadOptimizer !== 'none' || s.offloadParam !== 'none') out.pinMemory = k.pinMemory ?? true;
  // ratio: stage 3 with CPU optimizer offload (SuperOffload's default 0.9; plain ZeRO-3 offload only when searched)
  if (s.stage === 3 && s.offloadOptimizer === 'cpu' && (s.superOffload || k.ratio !== undefined)) out.ratio = k.ratio ?? SUPER_OFFLOAD_RATIO;
  if (s.superOffload) out.cpuadamCoresPerc = k.cpuadamCoresPerc ?? w.cpuadamCoresPerc ?? DEFAULT_CPUADAM_CORES_PERC;
  return out;
}

export function generateDsConfig(s: StrategyPreset, w: Workload, knobs: Knobs | number = {}): Record<string, unknown> {
  const k = resolveKnobs(s, w, knobs);
  const nvmePath = w.nvmePath ?? DEFAULT_NVME_PATH;
  const pin = k.pinMemory ?? true;
  const zero: Record<string, unknown> = {
    stage: s.stage,
    overlap_comm: k.overlapComm,
    contiguous_gradients: true,
    reduce_bucket_size: k.reduceBucketSize,
  };
  if (s.stage === 3) zero.sub_group_size = k.subGroupSize;
  if (s.offloadOptimizer === 'cpu') {
    zero.offload_optimizer = { device: 'cpu', pin_memory: pin };
    if (k.ratio !== undefined) (zero.offload_optimizer as Record<string, unknown>).ratio = k.ratio;
    if (s.superOffload)
      zero.offload_optimizer = { device: 'cpu', pin_memory: pin, ratio: k.ratio, super_offload: true, cpuadam_cores_perc: k.cpuadamCoresPerc };
  } else if (s.offloadOptimizer === 'nvme') {
    zero.offload_optimizer = { device: 'nvme', nvme_path: nvmePath, pin_memory: pin, buffer_count: 4, pipeline_read: false, pipeline_write: false };
  }
  if (s.offloadParam === 'cpu') zero.offload_param = { device: 'cpu', pin_memory: pin };
  else if (s.offloadParam === 'nvme')
    zero.offload_param = { device: 'nvme', nvme_path: nvmePath, pin_memory: pin, buffer_count: 5, buffer_size: 1e8, max_in_cpu: 1e9 };

  const config: Record<string, unknown> = {
    train_batch_size: w.microBatch * w.gradAccum * worldSize(w),
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
  if (s.offloadOptimizer === 'nvme' || s.offloadParam === 'nvme')
    config.aio = { block_size: 1048576, queue_depth: 8, single_submit: false, overlap_events: true, thread_count: 1 };
  return config;
}

export function generateFsdpBlock(knobs: Knobs = {}): FsdpBlock {
  return { cpuOffload: true, reshardAfterForward: knobs.reshardAfterForward ?? true };
}

/** The strategy's config: ds_config for DeepSpeed, the runner's fsdp block for FSDP2. */
export function generateConfig(s: StrategyPreset, w: Workload, knobs?: Knobs | number): Record<string, unknown> {
  return s.engine === 'fsdp2' ? { ...generateFsdpBlock(typeof knobs === 'number' ? {} : knobs) } : generateDsConfig(s, w, knobs);
}
