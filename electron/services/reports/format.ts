// Number and name formatting for reports (plain text; escaping happens where it is placed).
import { formatFigure } from '../../contract/format';
import type { Spread } from './types';

/** Measured and predicted figures: the shared formatter (a CPU run's 0.0084 TFLOPS reads 0.0084, not 0.0). */
export function fmt(value: number | null | undefined, digits = 1): string {
  return formatFigure(value, digits);
}

/** Byte sizes as the UI and the CLI show them. */
export { formatBytes as fmtBytes } from '../../contract/format';

export function fmtSpread(s: Spread | null, digits = 1): string {
  if (!s) return '—';
  if (s.n <= 1 || s.min === s.max) return fmt(s.median, digits);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/** Signed percent changes: the shared formatter (typographic minus), as on every page. */
export { formatDelta as fmtPct } from '../../contract/format';

// Strategy display names are shared with the Compare page (contract/charts/labels).
export { strategyLabel as strategyName } from '../../contract/charts/labels';

/** "2 Dec 2026, 16:31 UTC": the shared date format (a report travels between time zones, so it says UTC). */
export { formatDateTime as fmtTime } from '../../contract/format';
