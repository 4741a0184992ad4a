// Median / min / max, the statistics every report figure is given with.
import type { Spread } from './types';

export function spread(values: readonly (number | null | undefined)[]): Spread | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = xs.length >> 1;
  const median = xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
  return { median, min: xs[0], max: xs[xs.length - 1], n: xs.length };
}

/** Percent change of `value` against `baseline`; null when either is missing or the baseline is 0. */
export function percentDelta(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value == null || baseline == null || !Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return null;
  return ((value - baseline) / Math.abs(baseline)) * 100;
}
