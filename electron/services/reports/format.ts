// Number and name formatting for reports (plain text; escaping happens where it is placed).
import type { Spread } from './types';

export function fmt(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Byte sizes as the UI and the CLI show them. */
export { formatBytes as fmtBytes } from '../../contract/format';

export function fmtSpread(s: Spread | null, digits = 1): string {
  if (!s) return '—';
  if (s.n <= 1 || s.min === s.max) return fmt(s.median, digits);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

export function fmtPct(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  const sign = value > 0 ? '+' : value < 0 ? '−' : '±';
  return `${sign}${Math.abs(value).toFixed(1)} %`;
}

// Strategy display names are shared with the Compare page (contract/charts/labels).
export { strategyLabel as strategyName } from '../../contract/charts/labels';

/** "2 Dec 2026, 16:31 UTC": a report travels between time zones, so it says UTC. '—' when unreadable. */
export function fmtTime(value: string | Date | null | undefined): string {
  if (value == null) return '—';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return typeof value === 'string' ? value : '—';
  const date = d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' });
  return `${date}, ${time} UTC`;
}
