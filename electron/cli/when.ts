// `runs --since/--until` in the words people type: today, yesterday, now, 2h, 30m, 3d, 1w (ago),
// an ISO date or date-time. History compares stored ISO timestamps, so each form becomes one.
import { UsageError } from '../kernel';

const UNIT_MS: Record<string, number> = { s: 1e3, m: 60e3, min: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };
const FORMS = 'today, yesterday, now, 30m, 2h, 3d, 1w, or a date such as 2026-12-01 (or 2026-12-01T09:30)';

/** The ISO instant a --since/--until value names (local midnight for today/yesterday and bare dates). */
export function parseWhen(flag: string, text: string, now: Date = new Date()): string {
  const t = text.trim().toLowerCase();
  const midnight = (daysBack: number) => {
    const d = new Date(now);
    d.setHours(0, 0, 0, 0);
    d.setDate(d.getDate() - daysBack);
    return d.toISOString();
  };
  if (t === 'now') return now.toISOString();
  if (t === 'today') return midnight(0);
  if (t === 'yesterday') return midnight(1);
  const ago = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)(?:\s+ago)?$/.exec(t);
  if (ago) return new Date(now.getTime() - Number(ago[1]) * UNIT_MS[ago[2]]).toISOString();
  // A date (local midnight) or a date-time (local unless it names its zone).
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (date) {
    const d = new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (d.getMonth() === Number(date[2]) - 1 && d.getDate() === Number(date[3])) return d.toISOString();
  } else if (/^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}/.test(t)) {
    const ms = Date.parse(text.trim().replace(' ', 'T'));
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  throw new UsageError(`--${flag} '${text}' is not a time I can read; use ${FORMS}`);
}
