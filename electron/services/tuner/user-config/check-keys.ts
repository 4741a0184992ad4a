// A user's keys against what DeepSpeed 0.19 does with them: a top-level key it never looks up is
// ignored (a note — often a typo, e.g. "zero_optimisation", that silently trains without ZeRO); a key
// its zero_optimization / offload models do not have is refused by DeepSpeed ("Extra inputs are not
// permitted"), so it is an error here, named; a deprecated key is a note with what replaces it.
import type { ConfigKeyNote } from '../../../contract';
import { deepSpeedKeys, fieldFor, type FieldInfo } from './deepspeed-keys';
import { isObject, type JsonObject } from './json-text';

type Err = { field: string; message: string };

function closest(key: string, known: string[]): string | null {
  // A near miss (one or two edits) is worth naming: "stage3_prefetch_bucket_sise" → "stage3_prefetch_bucket_size".
  let best: string | null = null;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(key, k, bestD);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

function names(block: Record<string, FieldInfo>): string[] {
  return Object.entries(block).flatMap(([n, f]) => (f.alias ? [n, f.alias] : [n]));
}

function checkBlock(
  where: string,
  value: JsonObject,
  block: Record<string, FieldInfo>,
  errors: Err[],
  notes: ConfigKeyNote[],
  nested: string[] = [],
): void {
  const version = deepSpeedKeys().deepspeedVersion;
  for (const key of Object.keys(value)) {
    if (nested.includes(key)) continue;
    const field = fieldFor(block, key);
    if (!field) {
      const near = closest(key, names(block));
      // a block DeepSpeed reads at the top level, nested here (the transformers docs' NVMe config has its "aio" inside zero_optimization)
      const topLevel = deepSpeedKeys().topLevel.includes(key);
      errors.push({
        field: `${where}.${key}`,
        message: `DeepSpeed ${version} refuses the config: "Extra inputs are not permitted" (${where} has no key "${key}")${topLevel ? `: "${key}" is a top-level key, move it out of ${where}` : near ? `: did you mean "${near}"?` : ': remove it'}`,
      });
    } else if (field.info.deprecated)
      notes.push({
        key: `${where}.${key}`,
        kind: 'deprecated',
        message: `deprecated in DeepSpeed ${version}${field.info.newParam ? `: use ${field.info.newParam}` : ''}; DeepSpeed still maps it`,
      });
  }
}

export function checkKeys(config: JsonObject, errors: Err[], notes: ConfigKeyNote[]): void {
  const keys = deepSpeedKeys();
  for (const key of Object.keys(config))
    if (!keys.topLevel.includes(key)) {
      const near = closest(key, keys.topLevel);
      notes.push({
        key,
        kind: 'ignored-by-deepspeed',
        message: `DeepSpeed ${keys.deepspeedVersion} never reads this key and ignores it${near ? ` — did you mean "${near}"?` : ''}`,
      });
    }
  const zero = config.zero_optimization;
  if (zero === undefined || zero === null) return;
  if (!isObject(zero)) {
    errors.push({ field: 'zero_optimization', message: 'must be an object ({"stage": …})' });
    return;
  }
  checkBlock('zero_optimization', zero, keys.zero, errors, notes, ['offload_optimizer', 'offload_param']);
  for (const [name, block] of [
    ['offload_optimizer', keys.offloadOptimizer],
    ['offload_param', keys.offloadParam],
  ] as const) {
    const v = zero[name];
    if (v === undefined || v === null) continue;
    if (!isObject(v)) errors.push({ field: `zero_optimization.${name}`, message: 'must be an object ({"device": "cpu", …})' });
    else checkBlock(`zero_optimization.${name}`, v, block, errors, notes);
  }
}
