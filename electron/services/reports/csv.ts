// CSV (RFC 4180): CRLF rows, fields quoted when they hold a comma, quote, CR or LF, quotes
// doubled. Text cells that a spreadsheet would run as a formula (= + - @, tab, CR) get a
// leading apostrophe; numbers are written as numbers (a number cannot be a formula).
import { csvColumnOf, SPEC_OPTION_KEYS, type Comparison } from '../../contract';
import { groupOf, reportBaseline, runDeltas } from './baseline';
import type { ReportRun } from './types';

type Cell = string | number | boolean | null | undefined;

export function neutralise(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = neutralise(String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: Cell[][]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** What a run's cells are read from: the report's run, and the baseline of the runs exported with it. */
interface RowContext {
  run: ReportRun;
  comparison: Comparison;
  base: ReturnType<typeof reportBaseline>;
  deltas: ReturnType<typeof runDeltas>;
  baselineRun: string | null;
}

/** One CSV column: its header and its cell, declared together so the two lists cannot drift apart. */
interface Column {
  header: string;
  cell(row: RowContext): Cell;
}

const col = (header: string, cell: (row: RowContext) => Cell): Column => ({ header, cell });
const spread = (name: string, of: (f: ReportRun['figures']) => { median: number; min: number; max: number } | null): Column[] => [
  col(`${name}_median`, (x) => of(x.run.figures)?.median),
  col(`${name}_min`, (x) => of(x.run.figures)?.min),
  col(`${name}_max`, (x) => of(x.run.figures)?.max),
];

/** Fields of one part of the run, each a column named by the snake_case of its key (a prefix before it). */
function fields<T>(of: (run: ReportRun) => T, keys: readonly (keyof T & string)[], prefix = ''): Column[] {
  return keys.map((key) => col(`${prefix}${csvColumnOf(key)}`, (x) => of(x.run)[key] as Cell));
}

function specValue(spec: unknown, key: string): Cell {
  const v = spec && typeof spec === 'object' ? (spec as Record<string, unknown>)[key] : undefined;
  return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? v : null;
}

/** Every workload option the RunSpec carries is a column (contract workload-options.ts: snake_case of its
 *  key, in the table's order), holding the run's reading of it (the report's workload, contract
 *  ran-workload.ts: 'gpus' is per node, as --gpus is, 'nodes' beside it) or, for an option the reading
 *  does not carry (the seed), the stored spec's value. */
const WORKLOAD_CSV_COLUMNS: Column[] = SPEC_OPTION_KEYS.map((key) =>
  col(csvColumnOf(key), ({ run }) => (key in run.workload ? run.workload[key as keyof ReportRun['workload']] : specValue(run.spec, key))),
);

const RUN_CSV: Column[] = [
  ...fields(
    (r) => r.summary,
    ['id', 'createdAt', 'startedAt', 'finishedAt', 'status', 'model', 'strategy', 'engine', 'sweepId', 'repeatIndex', 'machineId'],
  ),
  col('hostname', (x) => x.run.machine?.hostname ?? null),
  col('tags', (x) => x.run.summary.tags.join(';')),
  ...fields((r) => r.summary, ['notes', 'errorClass', 'errorMessage']),
  ...WORKLOAD_CSV_COLUMNS,
  // the reading's products and the parameter count of the TFLOPS formula
  ...fields((r) => r.workload, ['globalBatch', 'params']),
  ...fields((r) => r.figures, ['measuredSteps']),
  col('figures_source', (x) => x.run.figures.source),
  ...spread('tflops_per_gpu', (f) => f.tflopsPerGpu),
  ...spread('tflops_aggregate', (f) => f.tflopsAggregate),
  ...spread('tokens_per_second', (f) => f.tokensPerSecond),
  ...spread('step_seconds', (f) => f.stepSeconds),
  // the summary's older names, kept in the CSV (docs/architecture.md, "Names of figures")
  col('peak_gpu_bytes', (x) => x.run.figures.gpuPeakBytes),
  col('peak_host_bytes', (x) => x.run.figures.hostPeakBytes),
  ...fields((r) => r.predicted, ['tflopsPerGpu', 'stepSeconds', 'gpuPeakBytes', 'hostPeakBytes'], 'predicted_'),
  // One baseline definition (Compare's, the CLI's, the HTML/PDF report's): the baseline repeat
  // group's median of its runs' medians; baseline_id is the run that chose it.
  col('repeat_group', (x) => groupOf(x.comparison, x.run.summary.id)?.label ?? null),
  col('baseline_id', (x) => x.baselineRun),
  col('baseline_group', (x) => x.base.group?.label ?? null),
  col('baseline_repeats', (x) => x.base.group?.runIds.length ?? null),
  ...(['tflopsPerGpu', 'stepSeconds'] as const).map((key) => col(`baseline_${csvColumnOf(key)}`, (x) => x.base[key])),
  col('delta_tflops_per_gpu_pct', (x) => x.deltas.tflopsPerGpuPct),
  col('delta_step_seconds_pct', (x) => x.deltas.stepSecondsPct),
  col('speedup_vs_baseline', (x) => x.deltas.speedup),
  col('runner_version', (x) => x.run.versions.runner),
  ...fields((r) => r.versions, ['python', 'torch', 'deepspeed', 'cuda', 'driver']),
];

export const RUN_COLUMNS = RUN_CSV.map((c) => c.header);

/** `comparison`: history's comparison of the same runs with the report's baseline (reports/index.ts). */
export function runsCsv(runs: ReportRun[], comparison: Comparison, baselineId?: string): string {
  const base = reportBaseline(comparison);
  const baselineRun = baselineId ?? base.group?.runIds[0] ?? runs[0]?.summary.id ?? null;
  const rows = runs.map((run) => {
    const row: RowContext = { run, comparison, base, deltas: runDeltas(run, base), baselineRun };
    return RUN_CSV.map((c) => c.cell(row));
  });
  return toCsv(RUN_COLUMNS, rows);
}

export const SAMPLE_COLUMNS = [
  'run_id',
  'strategy',
  'step',
  'warmup',
  'step_seconds',
  'tflops_per_gpu',
  'tokens_per_second',
  'loss',
  'gpu_allocated_bytes',
  'gpu_reserved_bytes',
  'gpu_peak_bytes',
  'host_rss_bytes',
];

export function samplesCsv(runs: ReportRun[]): string {
  const rows = runs.flatMap((r) =>
    r.samples.map((s) => [
      r.summary.id,
      r.summary.strategy,
      s.step,
      s.warmup ? 'true' : 'false',
      s.stepSeconds,
      s.tflopsPerGpu,
      s.tokensPerSecond,
      s.loss,
      s.gpuAllocatedBytes,
      s.gpuReservedBytes,
      s.gpuPeakBytes,
      s.hostRssBytes,
    ]),
  );
  return toCsv(SAMPLE_COLUMNS, rows);
}
