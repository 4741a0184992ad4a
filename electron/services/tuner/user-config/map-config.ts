// A resolved ds_config as one strategy of the catalogue with knobs: the registry's strategyOfConfig
// picks the strategy (the one decision a stored run's config gets too), DeepSpeed's own defaults fill
// what the config leaves out (not the app's generator defaults: an absent sub_group_size is DeepSpeed's
// 1e9, an absent ratio is 1.0), and every
// key the time and memory model cannot represent is named with what the prediction assumes instead.
// A config that is no strategy of the catalogue (stage 0, fp32, pipeline or tensor parallelism…) maps
// to none: it still runs unchanged, its prediction is unavailable and the reason says why.
import { numericValue, type ConfigKeyNote, type ConfigMapping, type Knobs } from '../../../contract';
import { configParts, strategyOfConfig } from '../mechanisms';
import { deepSpeedKeys, valueOf } from './deepspeed-keys';
import { isObject, type JsonObject } from './json-text';
import type { BatchResult } from './batch';

const enabled = (v: unknown) => isObject(v) && v.enabled === true;

/** zero_optimization keys whose effect the model does not represent, when they differ from DeepSpeed's default. */
const NOT_MODELLED_ZERO = [
  'allgather_bucket_size',
  'prefetch_bucket_size',
  'param_persistence_threshold',
  'model_persistence_threshold',
  'max_live_parameters',
  'max_reuse_distance',
  'contiguous_gradients',
  'reduce_scatter',
  'allgather_partitions',
  'round_robin_gradients',
  'module_granularity_threshold',
  'use_all_reduce_for_fetch_params',
  'allgather_sequential',
  'memory_efficient_linear',
];
/** Features the tuner has no model of: the config still runs, without a prediction. */
const UNMODELLED_FEATURES: [string, (c: JsonObject, zero: JsonObject) => boolean, string][] = [
  ['pipeline', (c) => isObject(c.pipeline) && (numericValue(c.pipeline.stages) ?? 1) > 1, 'pipeline parallelism'],
  [
    'tensor_parallel',
    (c) => isObject(c.tensor_parallel) && (numericValue(c.tensor_parallel.autotp_size) ?? numericValue(c.tensor_parallel.tp_size) ?? 1) > 1,
    'tensor parallelism',
  ],
  [
    'zero_optimization.zero_hpz_partition_size',
    (_, z) => (numericValue(z.zero_hpz_partition_size) ?? 1) > 1,
    'ZeRO++ hierarchical partitioning',
  ],
  [
    'zero_optimization.zero_quantized_weights',
    (_, z) => z.zero_quantized_weights === true || z.zero_quantized_gradients === true,
    'ZeRO++ quantized weights / gradients',
  ],
  ['zero_optimization.zenflow', (_, z) => isObject(z.zenflow), 'ZenFlow'],
  ['compression_training', (c) => isObject(c.compression_training), 'compression training'],
  ['hybrid_engine', (c) => enabled(c.hybrid_engine), 'the hybrid engine'],
  ['sparse_attention', (c) => isObject(c.sparse_attention), 'sparse attention'],
];

export function mapConfig(config: JsonObject, batch: BatchResult, worldSize: number, notes: ConfigKeyNote[]): ConfigMapping {
  const keys = deepSpeedKeys();
  const parts = configParts(config);
  const zero: JsonObject = parts.zero ?? {};
  const stage = numericValue(zero.stage) ?? 0;
  const oo: JsonObject = parts.offloadOptimizer ?? {};
  const op: JsonObject = parts.offloadParam ?? {};
  const ooDevice = String(oo.device ?? 'none');
  const opDevice = String(op.device ?? 'none');
  const superOffload = oo.super_offload === true;
  const precision = enabled(config.bf16) || enabled(config.bfloat16) ? 'bf16' : enabled(config.fp16) ? 'fp16' : 'fp32';
  const base = { microBatch: batch.microBatch, gradAccum: batch.gradAccum, worldSize, precision, notes } as const;
  const none = (why: string): ConfigMapping => ({ ...base, strategyId: null, knobs: {}, unmodelled: why });

  for (const [key, present, words] of UNMODELLED_FEATURES)
    if (present(config, zero))
      return none(`${key}: ${words} is not something the tuner models (it runs as given; there is no prediction to set beside it)`);
  if (precision === 'fp32') return none('neither bf16 nor fp16 is enabled: fp32 training is not modelled (the tuner predicts bf16 / fp16)');

  const decided = strategyOfConfig(parts);
  if (!decided.strategy) return none(decided.why);
  const strategyId = decided.strategy.id;
  if (decided.assumed) notes.push({ key: 'zero_optimization.stage', kind: 'assumed', message: decided.assumed });
  notes.unshift({
    key: 'zero_optimization',
    kind: 'mapped',
    message: `stage ${stage}, optimizer offload ${ooDevice}, parameter offload ${opDevice}${superOffload ? ', super_offload' : ''}: modelled as ${strategyId}`,
  });

  // Knobs with DeepSpeed's defaults where the config is silent.
  const dflt = (name: string) => keys.zero[name]?.default;
  const knobs: Knobs = {};
  const overlap = zero.overlap_comm;
  knobs.overlapComm = typeof overlap === 'boolean' ? overlap : stage === 3; // DeepSpeed: None → true for stage 3
  knobs.reduceBucketSize = Math.round(numericValue(zero.reduce_bucket_size) ?? Number(dflt('reduce_bucket_size')));
  if (stage === 3) knobs.subGroupSize = Math.round(numericValue(zero.sub_group_size) ?? Number(dflt('sub_group_size')));
  if (ooDevice !== 'none' || opDevice !== 'none')
    knobs.pinMemory = [oo, op].some((b) => (b.device ?? 'none') !== 'none' && b.pin_memory !== false);
  if (stage === 3 && ooDevice === 'cpu') knobs.ratio = numericValue(oo.ratio) ?? Number(keys.offloadOptimizer.ratio.default);
  if (superOffload) {
    const perc = numericValue(oo.cpuadam_cores_perc) ?? Number(keys.offloadOptimizer.cpuadam_cores_perc.default);
    // the knob is < 1 (some cores stay with the trainer); DeepSpeed takes 1.0 and leaves none
    knobs.cpuadamCoresPerc = Math.min(perc, 0.99);
    if (perc >= 1)
      notes.push({
        key: 'zero_optimization.offload_optimizer.cpuadam_cores_perc',
        kind: 'assumed',
        message: '1.0 gives CPU Adam every core; modelled as 0.99',
      });
    if (oo.cpuadam_cores_perc === undefined)
      notes.push({
        key: 'zero_optimization.offload_optimizer.cpuadam_cores_perc',
        kind: 'assumed',
        message: `not set: DeepSpeed's default ${perc}`,
      });
  }
  for (const name of NOT_MODELLED_ZERO) {
    const v = valueOf(zero, keys.zero, name);
    if (v !== undefined && v !== dflt(name))
      notes.push({
        key: `zero_optimization.${keys.zero[name]?.alias && zero[keys.zero[name].alias as string] !== undefined ? keys.zero[name].alias : name}`,
        kind: 'not-modelled',
        message: `${JSON.stringify(v)} (DeepSpeed's default ${JSON.stringify(dflt(name))}): the prediction does not model its effect on speed or memory`,
      });
  }
  if (!isObject(config.optimizer))
    notes.push({
      key: 'optimizer',
      kind: 'assumed',
      message:
        'no optimizer block: your training script supplies one (HF Trainer creates AdamW); the benchmark runner gives DeepSpeed AdamW, and the prediction assumes Adam',
    });
  else if (!/adam/i.test(String(config.optimizer.type ?? '')))
    notes.push({
      key: 'optimizer.type',
      kind: 'not-modelled',
      message: `${JSON.stringify(config.optimizer.type)}: the prediction assumes Adam's states (12 bytes per parameter) and step cost`,
    });
  if (isObject(config.activation_checkpointing))
    notes.push({
      key: 'activation_checkpointing',
      kind: 'not-modelled',
      message:
        "DeepSpeed's checkpointing block applies to models that call deepspeed.checkpointing; the benchmark checkpoints each decoder layer as HF's gradient_checkpointing does (the workload's setting)",
    });
  return { ...base, strategyId, knobs, unmodelled: null };
}
