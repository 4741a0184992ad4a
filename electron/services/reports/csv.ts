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

const FIXED_RUN_COLUMNS = [
  'id',
  'created_at',
  'started_at',
  'finished_at',
  'status',
  'model',
  'strategy',
  'engine',
  'sweep_id',
  'repeat_index',
  'machine_id',
  'hostname',
  'tags',
  'notes',
  'error_class',
  'error_message',
  'gpus',
  'nodes',
  'seq_len',
  'global_batch',
  'micro_batch',
  'grad_accum',
  'precision',
  'activation_checkpointing',
  'params',
  'measured_steps',
  'figures_source',
  'tflops_per_gpu_median',
  'tflops_per_gpu_min',
  'tflops_per_gpu_max',
  'tflops_aggregate_median',
  'tflops_aggregate_min',
  'tflops_aggregate_max',
  'tokens_per_second_median',
  'tokens_per_second_min',
  'tokens_per_second_max',
  'step_seconds_median',
  'step_seconds_min',
  'step_seconds_max',
  'peak_gpu_bytes',
  'peak_host_bytes',
  'predicted_tflops_per_gpu',
  'predicted_step_seconds',
  'predicted_gpu_peak_bytes',
  'predicted_host_peak_bytes',
  // One baseline definition (Compare's, the CLI's, the HTML/PDF report's): the baseline repeat
  // group's median of its runs' medians; baseline_id is the run that chose it.
  'repeat_group',
  'baseline_id',
  'baseline_group',
  'baseline_repeats',
  'baseline_tflops_per_gpu',
  'baseline_step_seconds',
  'delta_tflops_per_gpu_pct',
  'delta_step_seconds_pct',
  'speedup_vs_baseline',
  'runner_version',
  'python',
  'torch',
  'deepspeed',
  'cuda',
  'driver',
];

/** Every workload option the RunSpec carries is a column (contract workload-options.ts: snake_case of its
 *  key); those not among the columns above (seq_len… read from the report's workload, which falls back
 *  to the runner's config message) come after them, read from the stored spec. */
const SPEC_OPTION_COLUMNS = SPEC_OPTION_KEYS.map((key) => ({ key, column: csvColumnOf(key) })).filter(
  (c) => !FIXED_RUN_COLUMNS.includes(c.column),
);

export const RUN_COLUMNS = [...FIXED_RUN_COLUMNS, ...SPEC_OPTION_COLUMNS.map((c) => c.column)];

function specValue(spec: unknown, key: string): Cell {
  const v = spec && typeof spec === 'object' ? (spec as Record<string, unknown>)[key] : undefined;
  if (typeof v === 'boolean') return String(v);
  return typeof v === 'number' || typeof v === 'string' ? v : null;
}

/** `comparison`: history's comparison of the same runs with the report's baseline (reports/index.ts). */
export function runsCsv(runs: ReportRun[], comparison: Comparison, baselineId?: string): string {
  const base = reportBaseline(comparison);
  const baselineRun = baselineId ?? base.group?.runIds[0] ?? runs[0]?.summary.id ?? null;
  const rows = runs.map((r) => {
    const s = r.summary;
    const f = r.figures;
    const w = r.workload;
    const d = runDeltas(r, base);
    return [
      s.id,
      s.createdAt,
      s.startedAt,
      s.finishedAt,
      s.status,
      s.model,
      s.strategy,
      s.engine,
      s.sweepId,
      s.repeatIndex,
      s.machineId,
      r.machine?.hostname ?? null,
      s.tags.join(';'),
      s.notes,
      s.errorClass,
      s.errorMessage,
      Math.round(w.worldSize / Math.max(1, w.nodes)), // 'gpus' is per node, as the option (--gpus) is; 'nodes' beside it
      w.nodes,
      w.seqLen,
      w.globalBatch,
      w.microBatch,
      w.gradAccum,
      w.precision,
      w.activationCheckpointing === null ? null : String(w.activationCheckpointing),
      w.params,
      f.measuredSteps,
      f.source,
      f.tflopsPerGpu?.median,
      f.tflopsPerGpu?.min,
      f.tflopsPerGpu?.max,
      f.tflopsAggregate?.median,
      f.tflopsAggregate?.min,
      f.tflopsAggregate?.max,
      f.tokensPerSecond?.median,
      f.tokensPerSecond?.min,
      f.tokensPerSecond?.max,
      f.stepSeconds?.median,
      f.stepSeconds?.min,
      f.stepSeconds?.max,
      f.gpuPeakBytes,
      f.hostPeakBytes,
      r.predicted.tflopsPerGpu,
      r.predicted.stepSeconds,
      r.predicted.gpuPeakBytes,
      r.predicted.hostPeakBytes,
      groupOf(comparison, s.id)?.label ?? null,
      baselineRun,
      base.group?.label ?? null,
      base.group?.runIds.length ?? null,
      base.tflopsPerGpu,
      base.stepSeconds,
      d.tflopsPerGpuPct,
      d.stepSecondsPct,
      d.speedup,
      r.versions.runner,
      r.versions.python,
      r.versions.torch,
      r.versions.deepspeed,
      r.versions.cuda,
      r.versions.driver,
      ...SPEC_OPTION_COLUMNS.map((c) => specValue(r.spec, c.key)),
    ];
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
