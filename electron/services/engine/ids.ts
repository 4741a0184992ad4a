// Run and sweep ids: sortable by time, short (they key every sample row), readable in a terminal.
import crypto from 'node:crypto';

function stamp(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}-${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}`;
}

export function newSweepId(date = new Date()): string {
  return `sw-${stamp(date)}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Runs of one sweep share its stamp and differ in their index: sw-… → r-…-<i>. */
export function runIdFor(sweepId: string, index: number): string {
  return `r${sweepId.slice(2)}-${index + 1}`;
}
