// Statistics over repeats and deltas against a baseline. Pure functions: no database here, so
// the numbers a comparison shows can be checked by hand in the tests.
import type { MetricInfo, Stats } from '../../contract';

/** Median, min, max, mean and sample stdev of the finite values, keeping the raw values in order. */
export function repeatStats(values: readonly (number | null | undefined)[]): Stats | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  // Sample (n − 1) stdev: repeats are a sample of what the machine does, not the population.
  const variance = n > 1 ? xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0;
  return { n, median, min: sorted[0], max: sorted[n - 1], mean, stdev: Math.sqrt(variance), values: xs };
}

/** Percent change of `value` against `baseline`: +10 means 10 % larger. Null when undefined. */
export function deltaPercent(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value == null || baseline == null || !Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return null;
  return ((value - baseline) / Math.abs(baseline)) * 100;
}

/**
 * How many times better `value` is than `baseline` for a metric, so > 1 always means better:
 * value/baseline when higher is better, baseline/value when lower is better.
 */
export function speedup(metric: Pick<MetricInfo, 'better'>, value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value == null || baseline == null || !(value > 0) || !(baseline > 0)) return null;
  return metric.better === 'higher' ? value / baseline : baseline / value;
}
