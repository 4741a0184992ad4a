// DeepSpeed's batch arithmetic (runtime/config.py _set_batch_related_parameters and _batch_assertion):
// train_batch_size = micro × accumulation × data-parallel world size, the missing ones derived from the
// ones given. Done here so a config that DeepSpeed would refuse after initialising the process group is
// refused before anything runs, with the key named.
import type { JsonObject } from './json-text';
import { globalBatch } from '../../../contract';

export interface BatchResult {
  microBatch: number;
  gradAccum: number;
  trainBatch: number;
}

type Err = { field: string; message: string };

function positiveInt(config: JsonObject, key: string, errors: Err[]): number | null {
  const v = config[key];
  if (v === undefined || v === null) return null;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isInteger(n) || n <= 0) {
    errors.push({ field: key, message: `must be a positive whole number (got ${JSON.stringify(v)})` });
    return null;
  }
  return n;
}

export function deriveBatch(config: JsonObject, world: number, errors: Err[]): BatchResult | null {
  const before = errors.length;
  const tbs = positiveInt(config, 'train_batch_size', errors);
  const micro = positiveInt(config, 'train_micro_batch_size_per_gpu', errors);
  const ga = positiveInt(config, 'gradient_accumulation_steps', errors);
  if (errors.length > before) return null;
  const whole = (n: number, field: string, words: string): number | null => {
    if (Number.isInteger(n) && n > 0) return n;
    errors.push({
      field,
      message: `${words} is not a whole number: DeepSpeed would refuse it — make train_batch_size a multiple of the others`,
    });
    return null;
  };
  if (tbs !== null && micro !== null && ga !== null) {
    if (tbs !== globalBatch({ microBatch: micro, gradAccum: ga, worldSize: world })) {
      errors.push({
        field: 'train_batch_size',
        message: `${tbs} ≠ micro ${micro} × accumulation ${ga} × ${world} GPU(s) = ${globalBatch({ microBatch: micro, gradAccum: ga, worldSize: world })}: DeepSpeed refuses this; fix one of the three (or leave train_batch_size out)`,
      });
      return null;
    }
    return { microBatch: micro, gradAccum: ga, trainBatch: tbs };
  }
  if (tbs !== null && micro !== null) {
    const g = whole(
      tbs / (micro * world),
      'train_batch_size',
      `${tbs} / (micro ${micro} × ${world} GPU(s)) = ${tbs / (micro * world)} accumulation steps`,
    );
    return g === null ? null : { microBatch: micro, gradAccum: g, trainBatch: tbs };
  }
  if (tbs !== null && ga !== null) {
    const m = whole(
      tbs / (ga * world),
      'train_batch_size',
      `${tbs} / (accumulation ${ga} × ${world} GPU(s)) = ${tbs / (ga * world)} as micro batch`,
    );
    return m === null ? null : { microBatch: m, gradAccum: ga, trainBatch: tbs };
  }
  if (micro !== null) {
    const g = ga ?? 1;
    return { microBatch: micro, gradAccum: g, trainBatch: globalBatch({ microBatch: micro, gradAccum: g, worldSize: world }) };
  }
  if (tbs !== null) {
    const m = whole(tbs / world, 'train_batch_size', `${tbs} / ${world} GPU(s) = ${tbs / world} as micro batch`);
    return m === null ? null : { microBatch: m, gradAccum: 1, trainBatch: tbs };
  }
  errors.push({
    field: 'train_batch_size',
    message: 'DeepSpeed needs train_batch_size or train_micro_batch_size_per_gpu: add one (or "auto" to take the workload\'s micro batch)',
  });
  return null;
}
