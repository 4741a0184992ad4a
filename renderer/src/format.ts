// Number formatting shared by every page.
import { formatFigure } from '../../electron/contract/format';

export { formatBytes, formatDateTime, formatDelta, formatDuration, formatMetricValue, formatRepeats } from '../../electron/contract/format';

/** Measured and predicted figures: the shared formatter (tiny CPU-run figures keep three significant digits). */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  return formatFigure(value, digits);
}
