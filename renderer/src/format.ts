// Number formatting shared by every page.
import { formatFigure } from '../../electron/contract/format';

export { formatBytes, formatDateTime, formatDelta, formatDuration, formatMetricValue, formatRepeats } from '../../electron/contract/format';

/** Measured and predicted figures: the shared formatter (tiny CPU-run figures keep three significant digits). */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  return formatFigure(value, digits);
}

/** "1.2 B params", "42 M params": readable at every size (tiny-llama is not "0.000 B"). */
export function formatParams(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(n >= 1e10 ? 0 : 1)} B params`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)} M params`;
  return `${Math.round(n / 1e3)} K params`;
}
