// The numbers of a user's ds_config checked against the range the app can plan and run, before
// anything is derived from them. Out-of-range values once passed the checks and failed on the way out:
// reduce_bucket_size 1e300 as a bad_response of the backend's own answer, a micro batch of 31 digits
// or train_batch_size 2^62 as "must be a whole number (no fractions)" (the double lost the digits),
// 1e309 as "got null" (JSON.parse made it Infinity), and gradient_accumulation_steps 1e15 ran with no
// step in 60 s. Each is refused here naming the key, the value as read and the range.
import { ApiError } from '../../../contract';
import { isObject, type JsonObject } from './json-text';

/** Batch figures: far above any real run, low enough that products stay exact. */
const BATCH_MAX = 1_048_576;
/** DeepSpeed's element counts (buckets, thresholds): whole, exact in a double. */
const COUNT_MAX = Number.MAX_SAFE_INTEGER;

interface Range {
  min: number;
  max: number;
}

const TOP: Record<string, Range> = {
  train_batch_size: { min: 1, max: BATCH_MAX * 1024 },
  train_micro_batch_size_per_gpu: { min: 1, max: BATCH_MAX },
  gradient_accumulation_steps: { min: 1, max: BATCH_MAX },
};

const ZERO: Record<string, Range> = Object.fromEntries(
  [
    'reduce_bucket_size',
    'allgather_bucket_size',
    'sub_group_size',
    'stage3_prefetch_bucket_size',
    'stage3_param_persistence_threshold',
    'stage3_max_live_parameters',
    'stage3_max_reuse_distance',
    'stage3_model_persistence_threshold',
  ].map((k) => [k, { min: 0, max: COUNT_MAX }]),
);

const shown = (v: number) => (Number.isFinite(v) ? String(v) : 'beyond what a number holds (over 1.8e308)');

function check(key: string, v: unknown, range: Range, fileName: string): void {
  if (typeof v !== 'number') return; // "auto", or a wrong type: the key checks name it
  if (Number.isInteger(v) && v >= range.min && v <= range.max) return;
  throw new ApiError(
    'bad_config',
    `${fileName}: ${key} is ${shown(v)}; it must be a whole number from ${range.min.toLocaleString('en-US')} to ${range.max.toLocaleString('en-US')}. Check the value (or write "auto").`,
    key,
  );
}

/** Throws bad_config for the first batch or ZeRO count outside its range. */
export function checkValueRanges(config: JsonObject, fileName: string): void {
  for (const [key, range] of Object.entries(TOP)) check(key, config[key], range, fileName);
  const zero = config.zero_optimization;
  if (isObject(zero)) for (const [key, range] of Object.entries(ZERO)) check(`zero_optimization.${key}`, zero[key], range, fileName);
}
