// Statistics over repeats and deltas against a baseline. Pure functions: no database here, so
// the numbers a comparison shows can be checked by hand in the tests.
import { median as medianOf, type MetricInfo, type Stats } from '../../contract';

/** Median, min, max, mean and sample stdev of the finite values, keeping the raw values in order.
 *  Every figure is finite whatever the values: near Number.MAX_VALUE a plain sum or square
 *  overflows to Infinity, which no answer may carry (compare/runs answered bad_response). */
export function repeatStats(values: readonly (number | null | undefined)[]): Stats | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const n = sorted.length;
  const median = medianOf(sorted)!; // the one median (contract/median.ts)
  const mean = meanOf(xs);
  // Sample (n − 1) stdev: repeats are a sample of what the machine does, not the population.
  const stdev = n > 1 ? sampleStdev(xs, mean) : 0;
  return { n, median, min: sorted[0], max: sorted[n - 1], mean, stdev, values: xs };
}

const clampFinite = (x: number) => Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, x));

function meanOf(xs: readonly number[]): number {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  // The sum overflowed: the same mean from shares that cannot (each |x| / n ≤ MAX_VALUE / n).
  return Number.isFinite(mean) ? mean : clampFinite(xs.reduce((s, x) => s + x / xs.length, 0));
}

function sampleStdev(xs: readonly number[], mean: number): number {
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1);
  if (Number.isFinite(variance)) return Math.sqrt(variance);
  // The squares overflowed: the same spread in units of the largest magnitude, scaled back.
  const scale = xs.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  const scaled = xs.reduce((s, x) => s + (x / scale - mean / scale) ** 2, 0) / (xs.length - 1);
  return clampFinite(Math.sqrt(scaled) * scale);
}

/** Percent change of `value` against `baseline`: +10 means 10 % larger. Null when undefined. */
export function deltaPercent(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value == null || baseline == null || !Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return null;
  const pct = ((value - baseline) / Math.abs(baseline)) * 100;
  return Number.isFinite(pct) ? pct : null; // beyond what a number holds (1e308 against 1e-308)
}

/**
 * How many times better `value` is than `baseline` for a metric, so > 1 always means better:
 * value/baseline when higher is better, baseline/value when lower is better.
 */
export function speedup(
  metric: Pick<MetricInfo, 'better'>,
  value: number | null | undefined,
  baseline: number | null | undefined,
): number | null {
  if (value == null || baseline == null || !(value > 0) || !(baseline > 0)) return null;
  const ratio = metric.better === 'higher' ? value / baseline : baseline / value;
  return Number.isFinite(ratio) ? ratio : null; // beyond what a number holds (1e308 against 1e-308)
}
