// Number formatting shared by every page.
export { formatBytes, formatDateTime, formatDelta } from '../../electron/contract/format';

export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  // Tiny figures (CPU smoke runs: 1e-4 TFLOPS) keep three significant digits instead of reading 0.00.
  if (value !== 0 && Math.abs(value) < 10 ** -digits) return value.toPrecision(3);
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
