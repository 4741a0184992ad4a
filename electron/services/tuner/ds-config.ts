// ds_config.json generation: one config per strategy, from the strategy's data and the workload.
// The seed scenario's keys (DeepSpeedExamples finetune_llama-70b_4gpu.sh) are applied to every
// DeepSpeed strategy so strategies are compared on the same bucket sizes.
import type { StrategyPreset, Workload } from '../../contract';

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

export function generateDsConfig(s: StrategyPreset, w: Workload, cpuadamCoresPerc = DEFAULT_CPUADAM_CORES_PERC): Record<string, unknown> {
  const nvmePath = w.nvmePath ?? DEFAULT_NVME_PATH;
  const zero: Record<string, unknown> = {
    stage: s.stage,
    overlap_comm: SEED_ZERO_KEYS.overlap_comm,
    contiguous_gradients: true,
    reduce_bucket_size: SEED_ZERO_KEYS.reduce_bucket_size,
  };
  if (s.stage === 3) zero.sub_group_size = SEED_ZERO_KEYS.sub_group_size;
  if (s.offloadOptimizer === 'cpu') {
    zero.offload_optimizer = { device: 'cpu', pin_memory: true };
    if (s.superOffload)
      zero.offload_optimizer = { device: 'cpu', pin_memory: true, ratio: SUPER_OFFLOAD_RATIO, super_offload: true, cpuadam_cores_perc: cpuadamCoresPerc };
  } else if (s.offloadOptimizer === 'nvme') {
    zero.offload_optimizer = { device: 'nvme', nvme_path: nvmePath, pin_memory: true, buffer_count: 4, pipeline_read: false, pipeline_write: false };
  }
  if (s.offloadParam === 'cpu') zero.offload_param = { device: 'cpu', pin_memory: true };
  else if (s.offloadParam === 'nvme')
    zero.offload_param = { device: 'nvme', nvme_path: nvmePath, pin_memory: true, buffer_count: 5, buffer_size: 1e8, max_in_cpu: 1e9 };

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

export function generateFsdpBlock(): FsdpBlock {
  return { cpuOffload: true, reshardAfterForward: true };
}

/** The strategy's config: ds_config for DeepSpeed, the runner's fsdp block for FSDP2. */
export function generateConfig(s: StrategyPreset, w: Workload, cpuadamCoresPerc?: number): Record<string, unknown> {
  return s.engine === 'fsdp2' ? { ...generateFsdpBlock() } : generateDsConfig(s, w, cpuadamCoresPerc);
}
