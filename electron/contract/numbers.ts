// What counts as a number in JSON the app did not write itself (a user's ds_config, a stored run's
// config and results): said once, so every reader of such a file agrees.

/** A finite JSON number, else undefined: a numeric string, NaN or Infinity is no number here. */
export const finiteNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A number or a numeric string (DeepSpeed reads both from its JSON config), else null. */
export function numericValue(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}
