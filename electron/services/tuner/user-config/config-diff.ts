// The tuned alternative as the user would write it: their own config with the keys the tuner decides
// (the batch keys, clipping, and in zero_optimization the stage, overlap_comm, the reduce bucket, the
// sub-group size and the offload blocks) taken from the tuned one, and everything else left as they had
// it — optimizer, scheduler, checkpointing, logging, profilers, and the zero_optimization keys the
// model does not represent (stage3_gather_16bit_weights_on_model_save decides whether HF Trainer can
// save the model; live parameters, prefetch sizes…) — and the difference, key by key.
import type { ConfigDiffEntry } from '../../../contract';
import { deepSpeedKeys, fieldFor } from './deepspeed-keys';
import { isObject, type JsonObject } from './json-text';
import { deriveBatch } from './batch';

const BATCH_KEYS = ['train_batch_size', 'train_micro_batch_size_per_gpu', 'gradient_accumulation_steps'] as const;
/** zero_optimization keys the tuner searches or its strategies set: the tuned config's value, or absent. */
const TUNED_ZERO_KEYS = ['stage', 'overlap_comm', 'reduce_bucket_size', 'sub_group_size'];
/** DeepSpeed's older spellings of the offload blocks: they would say the user's offload again beside the tuned one. */
const DEPRECATED_OFFLOAD_KEYS = ['cpu_offload', 'cpu_offload_param', 'cpu_offload_use_pin_memory'];
/** Keys of an offload block the tuner decides; the others (buffer_count, nvme_path, fast_init…) stay the user's while the device stays. */
const TUNED_OFFLOAD_KEYS = ['device', 'pin_memory', 'ratio', 'super_offload', 'cpuadam_cores_perc'];

/** The user's offload block under the tuned one: the user's other keys kept where the device is the same. */
function offloadBlock(yours: unknown, tuned: unknown): JsonObject | undefined {
  if (!isObject(tuned)) return undefined;
  if (!isObject(yours) || (yours.device ?? 'none') !== (tuned.device ?? 'none')) return structuredClone(tuned);
  const out = structuredClone(yours);
  for (const key of TUNED_OFFLOAD_KEYS) delete out[key];
  return { ...out, ...structuredClone(tuned) };
}

/** The user's zero_optimization with the tuned keys replaced; every other key as the user wrote it. */
function tunedZero(yours: unknown, tuned: unknown): JsonObject | undefined {
  if (!isObject(tuned)) return undefined;
  const out: JsonObject = isObject(yours) ? structuredClone(yours) : {};
  for (const key of [...TUNED_ZERO_KEYS, ...DEPRECATED_OFFLOAD_KEYS]) delete out[key];
  for (const key of TUNED_ZERO_KEYS) if (tuned[key] !== undefined) out[key] = structuredClone(tuned[key]);
  for (const key of ['offload_optimizer', 'offload_param']) {
    const block = offloadBlock(isObject(yours) ? yours[key] : undefined, tuned[key]);
    if (block) out[key] = block;
    else delete out[key];
  }
  return out;
}

/** The user's config with the tuned zero_optimization keys, clipping and batch — the batch written in the
 *  user's own keys where those still say it (train_batch_size alone stays alone when the tuned micro
 *  batch is what DeepSpeed derives from it), micro and accumulation added where they do not. */
export function tunedConfig(yours: JsonObject, tuned: JsonObject, worldSize = 1): JsonObject {
  const out = structuredClone(yours);
  const zero = tunedZero(yours.zero_optimization, tuned.zero_optimization);
  if (zero) out.zero_optimization = zero;
  else delete out.zero_optimization;
  if (tuned.gradient_clipping !== undefined) out.gradient_clipping = structuredClone(tuned.gradient_clipping);
  else delete out.gradient_clipping;
  for (const key of BATCH_KEYS) if (out[key] !== undefined && tuned[key] !== undefined) out[key] = tuned[key];
  const derived = deriveBatch(out, worldSize, []);
  if (!derived || derived.microBatch !== tuned.train_micro_batch_size_per_gpu || derived.gradAccum !== tuned.gradient_accumulation_steps) {
    out.train_micro_batch_size_per_gpu = tuned.train_micro_batch_size_per_gpu;
    out.gradient_accumulation_steps = tuned.gradient_accumulation_steps;
  }
  return out;
}

/** What DeepSpeed 0.19 takes for an absent key (undefined: no default worth comparing). */
function defaultOf(key: string, config: JsonObject): unknown {
  if (key === 'gradient_clipping') return 1.0;
  const zero = isObject(config.zero_optimization) ? config.zero_optimization : {};
  const keys = deepSpeedKeys();
  const [block, name, sub] = key.split('.');
  if (block !== 'zero_optimization' || !name) return undefined;
  if (name === 'overlap_comm') return Number(zero.stage ?? 0) === 3; // DeepSpeed: None → true for stage 3
  if (sub !== undefined)
    return fieldFor(name === 'offload_optimizer' ? keys.offloadOptimizer : name === 'offload_param' ? keys.offloadParam : {}, sub)?.info
      .default;
  return fieldFor(keys.zero, name)?.info.default;
}

function flatten(v: unknown, prefix: string, out: Map<string, unknown>): void {
  if (isObject(v) && Object.keys(v).length) for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  else out.set(prefix, v);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Every dotted key whose value differs (absent on one side: that side's field is left out), a key
 *  absent on one side and at DeepSpeed's default on the other counting as the same. */
export function configDiff(yours: JsonObject, tuned: JsonObject): ConfigDiffEntry[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  flatten(yours, '', a);
  flatten(tuned, '', b);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  const diff: ConfigDiffEntry[] = [];
  for (const key of keys) {
    if (same(a.get(key), b.get(key))) continue;
    if (!a.has(key) && same(defaultOf(key, yours), b.get(key))) continue;
    if (!b.has(key) && same(defaultOf(key, tuned), a.get(key))) continue;
    const entry: ConfigDiffEntry = { key };
    if (a.has(key)) entry.yours = a.get(key);
    if (b.has(key)) entry.tuned = b.get(key);
    diff.push(entry);
  }
  return diff;
}
