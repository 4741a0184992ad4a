// The keys DeepSpeed 0.19 reads, as recorded from DeepSpeed itself (resources/engine/ds_config_keys.py
// writes resources/engine/ds-config-keys.json; a pytest fails when the file is stale). The app checks
// a user's config against it without needing the engine's Python.
import fs from 'node:fs';
import { enginePath } from '../../resources';

export interface FieldInfo {
  default: unknown;
  alias?: string;
  deprecated?: boolean;
  newParam?: string | null;
}

export interface DeepSpeedKeys {
  deepspeedVersion: string;
  /** Every top-level key DeepSpeedConfig looks up; any other top-level key is ignored without a word. */
  topLevel: string[];
  /** zero_optimization and its offload blocks: pydantic models that refuse unknown keys. */
  zero: Record<string, FieldInfo>;
  offloadOptimizer: Record<string, FieldInfo>;
  offloadParam: Record<string, FieldInfo>;
  /** DeepSpeed's own LR schedulers: their constructor's keyword arguments (scheduler.params is passed as **kwargs). */
  schedulers: Record<string, Record<string, { default?: unknown; required?: true }>>;
}

let cached: DeepSpeedKeys | null = null;

export function deepSpeedKeys(): DeepSpeedKeys {
  cached ??= JSON.parse(fs.readFileSync(enginePath('ds-config-keys.json'), 'utf8')) as DeepSpeedKeys;
  return cached;
}

/** The field a key of a block names (by name or by its stage3_* alias), or null if DeepSpeed does not know it. */
export function fieldFor(block: Record<string, FieldInfo>, key: string): { name: string; info: FieldInfo } | null {
  if (block[key]) return { name: key, info: block[key] };
  for (const [name, info] of Object.entries(block)) if (info.alias === key) return { name, info };
  return null;
}

/** A key's value in a block, by name or alias (DeepSpeed accepts either). */
export function valueOf(zero: Record<string, unknown>, block: Record<string, FieldInfo>, name: string): unknown {
  if (zero[name] !== undefined) return zero[name];
  const alias = block[name]?.alias;
  return alias !== undefined ? zero[alias] : undefined;
}
