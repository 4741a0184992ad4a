// The values of numeric flags, read one way by every command: a count (sequence length, batch, GPUs,
// steps…) is a whole number ≥ 1, warm-up may be 0, and a bad value is a usage error (exit 2, as an
// unknown flag is) naming the flag. Before, `run` took 0 where `plan` and `tune` refused it, and the
// same mistake exited 1 or 2 depending on the command.
import { UsageError } from '../kernel';
import type { Flags } from '../kernel';

function bad(name: string, what: string, v: unknown): never {
  throw Object.assign(new UsageError(`--${name} must be ${what} (got ${String(v)})`), { field: name });
}

/** A whole number ≥ 1, or `fallback` when the flag is absent. */
export function countFlag(flags: Flags, name: string, fallback?: number): number | undefined {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isInteger(n) || n < 1) bad(name, 'a whole number of 1 or more', v);
  return n;
}

/** A whole number ≥ 0 (warm-up steps), or `fallback`. */
export function wholeFlag(flags: Flags, name: string, fallback?: number): number | undefined {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isInteger(n) || n < 0) bad(name, 'a whole number of 0 or more', v);
  return n;
}

/** A number > 0 (minutes, a noise fraction), or `fallback`. */
export function positiveFlag(flags: Flags, name: string, fallback: number): number {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n) || n <= 0) bad(name, 'a number above 0', v);
  return n;
}
