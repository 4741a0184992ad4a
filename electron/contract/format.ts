// Formatting shared by every front end (UI, CLI, reports): pure, imports nothing.
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/**
 * The one duration style of every surface (UI, CLI, reports, log lines): "51s", "1m 05s", "1h 2m".
 * Seconds are padded after minutes so a ticking ETA keeps its width; '—' when missing.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${r.toString().padStart(2, '0')}s` : `${r}s`;
}

/**
 * A measured rate in decimal units, as the hardware quotes it (link and memory bandwidth are
 * sold in GB/s, not GiB/s): "12.35 GB/s", "1.234 G params/s". '—' when missing.
 */
export function formatRate(perSecond: number | null | undefined, unit: string, digits = 2): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return '—';
  return `${(perSecond / 1e9).toFixed(digits)} G${unit}/s`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The one date/time format of every page, report and table, in UTC (a report travels between
 * time zones; a page on a GPU box reached over SSH shows the box's times):
 * full "3 Dec 2026, 08:14 UTC"; short (tables whose column header says UTC) "3 Dec 2026, 08:14".
 * '—' when missing or unreadable. Built by hand, so it never depends on the browser's locale or ICU.
 */
export function formatDateTime(value: string | number | Date | null | undefined, style: 'full' | 'short' = 'full'): string {
  if (value === null || value === undefined || value === '') return '—';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return '—';
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return style === 'full' ? `${text} UTC` : text;
}

/**
 * An id shortened for a narrow column, keeping its end: run and sweep ids share their leading
 * "sw-20261203-" (the day), so a cut from the end ("sw-2…", "sw-20261") leaves every id alike; the
 * time and random suffix at the end tell them apart ("…141502-a1b2c3"). Whole when it fits.
 */
export function idTail(id: string, max = 14): string {
  return id.length <= max ? id : `…${id.slice(id.length - (max - 1))}`;
}

/** The typographic minus (U+2212) every signed figure uses. */
export const MINUS = '\u2212';

/**
 * A signed percent change, as every page, report and the CLI print it: "+12.3 %", "−12.3 %"
 * (typographic minus), "±0.0 %" when it rounds to zero, '—' when missing.
 */
export function formatDelta(pct: number | null | undefined, digits = 1): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '—';
  const text = Math.abs(pct).toFixed(digits);
  const sign = Number(text) === 0 ? '±' : pct > 0 ? '+' : MINUS;
  return `${sign}${text} %`;
}

/**
 * A measured or predicted figure (TFLOPS, tokens/s, seconds), as every page, report and the CLI
 * print it: `digits` decimals ("412.3", "1,234" for digits 0, "0.500 s" for digits 3), except that a
 * figure under 1 keeps three significant digits instead of rounding to nothing (a CPU smoke run's
 * 0.0084 TFLOPS reads "0.0084", 0.01234 reads "0.0123", never "0.0"). '—' when missing.
 */
export function formatFigure(value: number | null | undefined, digits = 1, grouping = true): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', {
    maximumFractionDigits: figureDecimals(value, digits),
    minimumFractionDigits: digits,
    useGrouping: grouping,
  });
}

/** The most decimals formatFigure prints `value` with: `digits`, or three significant digits under 1. */
function figureDecimals(value: number, digits: number): number {
  if (value === 0 || !Number.isFinite(value) || Math.abs(value) >= 1) return digits;
  return Math.min(20, Math.max(digits, 2 - Math.floor(Math.log10(Math.abs(value)))));
}

/**
 * A group's repeats of a compared metric, in run order, as Compare and the CLI's `compare` print
 * them: "0.000318, 0.000160" — formatMetricValue's figures, all with the decimals the smallest
 * needs (so 0.00016 reads "0.000160" beside "0.000318", not a shorter "0.00016" that looks like a
 * different precision); a single repeat as formatMetricValue prints it. Bytes as formatBytes. '—' when there is none.
 */
export function formatRepeats(values: readonly number[], unit: string, grouping = true): string {
  const xs = values.filter((v) => Number.isFinite(v));
  if (xs.length === 0) return '—';
  if (unit === 'bytes') return xs.map((v) => formatBytes(v)).join(', ');
  // One repeat has nothing to line up with: it reads as its median does ("0.0029", not "0.00290").
  if (xs.length === 1) return formatMetricValue(xs[0], unit, grouping);
  const digits = metricDigits(unit);
  const decimals = Math.max(...xs.map((v) => figureDecimals(v, digits)));
  return xs
    .map((v) => v.toLocaleString('en-US', { maximumFractionDigits: decimals, minimumFractionDigits: decimals, useGrouping: grouping }))
    .join(', ');
}

/**
 * A figure where room is short (a bar's label, a chart tooltip): three significant digits, but never
 * fewer than its whole-number digits ("12,345" tokens/s, not toPrecision's 12300; "153"; "0.00842"),
 * and never in exponent notation. '—' when missing.
 */
export function formatCompact(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (Math.abs(value) >= 100) return formatFigure(value, 0);
  return value.toLocaleString('en-US', { maximumSignificantDigits: 3 });
}

/** Decimals a compared metric's figures print with, by its unit: step seconds 3, tokens/s 0, TFLOPS 1. */
export function metricDigits(unit: string): number {
  return unit === 's' ? 3 : unit === 'tokens/s' ? 0 : 1;
}

/**
 * A compared metric's value (contract METRICS: its unit), as Compare, its delta table and the CLI's
 * `compare` print it: bytes as formatBytes, the rest through formatFigure with metricDigits.
 */
export function formatMetricValue(value: number | null | undefined, unit: string, grouping = true): string {
  if (unit === 'bytes') return formatBytes(value);
  return formatFigure(value, metricDigits(unit), grouping);
}

/**
 * Whether a prediction holds figures. On a machine without a GPU the tuner plans CPU smoke runs
 * with zeros (a step cannot take 0 s): that is no prediction, not a prediction of zero.
 */
export function hasPrediction(p: { stepSeconds?: unknown } | null | undefined): boolean {
  return !!p && typeof p.stepSeconds === 'number' && Number.isFinite(p.stepSeconds) && p.stepSeconds > 0;
}

/**
 * The predicted GPU memory peak of a run or a plan row, null where there is none: a CPU run has no GPU
 * to predict for, whatever GPU figure its plan computed. The one answer of the run page, the reports,
 * the CSV and the Plan page — once they said "no prediction", "(2.3 GiB)", 2500836224 and 3.8 GiB
 * for the same CPU workload.
 */
export function predictedGpuPeakBytes(p: { stepSeconds?: unknown; gpuPeakBytes?: unknown } | null | undefined): number | null {
  if (!hasPrediction(p)) return null;
  const bytes = p!.gpuPeakBytes;
  return typeof bytes === 'number' && Number.isFinite(bytes) && bytes > 0 ? bytes : null;
}

/** What stands where a figure was not predicted (a CPU smoke run): a dash, its title says why. */
export const NO_PREDICTION = '—';
export const NO_PREDICTION_WHY = 'no prediction (CPU run)';
