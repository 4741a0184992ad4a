// A `runs` row as a RunSummary: the columns a summary needs and the one check of each value on the
// way out. The workload's columns come from the workload-option table (contract workload-options.ts
// `column`), so a new stored option is listed, summarised and checked without another edit here.
import { WORKLOAD_COLUMNS, type RunSummary } from '../../contract';
import { storedDataError } from './database';

/** The columns of `runs` a summary needs, as SQLite returns them; the workload's by name (WORKLOAD_COLUMNS). */
export interface SummaryRow {
  id: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  status: RunSummary['status'];
  model: string;
  strategy: string;
  engine: string;
  sweep_id: string | null;
  repeat_index: number;
  machine_id: string | null;
  tags: string;
  notes: string;
  error_class: string | null;
  error_message: string | null;
  tflops_per_gpu: number | null;
  tokens_per_second: number | null;
  step_seconds: number | null;
  peak_gpu_bytes: number | null;
  peak_host_bytes: number | null;
  config_hash?: string | null;
  /** The workload columns (seq_len, micro_batch, world_size, nodes, precision): absent in rows from before them. */
  [workloadColumn: string]: unknown;
}

// Named columns read as arrays: the binding's cost is per value materialised, and a `SELECT *`
// row object of the (now 30-column) runs table costs several times more than this (10,000 rows:
// ~1 s vs ~0.1 s on the 2-core dev box).
export const SUMMARY_COLUMNS: readonly string[] = [
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
  'tags',
  'notes',
  'error_class',
  'error_message',
  'tflops_per_gpu',
  'tokens_per_second',
  'step_seconds',
  'peak_gpu_bytes',
  'peak_host_bytes',
  ...WORKLOAD_COLUMNS.map((c) => c.name),
  'config_hash',
];

/** A row read as an array of SUMMARY_COLUMNS' values, by name. */
export function summaryRowOf(values: unknown[]): SummaryRow {
  return Object.fromEntries(SUMMARY_COLUMNS.map((column, i) => [column, values[i]])) as SummaryRow;
}

const RUN_STATUSES = new Set(['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted']);

/**
 * A stored row → RunSummary, every value checked on the way: a damaged row is reported as a
 * stored-data error naming the run and the column (not a bad response, not a JSON parse error
 * that reads like the request's fault).
 */
export function summaryFromRow(row: SummaryRow): RunSummary {
  const bad = (column: string, why: string): never => {
    throw storedDataError(row.id, column, why);
  };
  const text = (column: string, nullable: boolean): string | null => {
    const v = row[column];
    if (v === null && nullable) return null;
    if (typeof v !== 'string') bad(column, nullable ? 'not text or null' : 'not text');
    return v as string;
  };
  const number = (column: string): number | null => {
    const v = row[column];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !Number.isFinite(v)) bad(column, 'not a number');
    return v as number;
  };
  let tags: unknown;
  try {
    tags = JSON.parse(text('tags', false)!);
  } catch {
    bad('tags', 'not JSON');
  }
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) bad('tags', 'not a JSON array of strings');
  if (!RUN_STATUSES.has(row.status)) bad('status', 'not a run status');
  if (!Number.isSafeInteger(row.repeat_index)) bad('repeat_index', 'not an integer');
  const workload = Object.fromEntries(
    WORKLOAD_COLUMNS.map((c) => [c.reads, c.count ? number(c.name) : row[c.name] === undefined ? null : text(c.name, true)]),
  ) as Pick<RunSummary, (typeof WORKLOAD_COLUMNS)[number]['reads']>;
  return {
    id: text('id', false)!,
    createdAt: text('created_at', false)!,
    startedAt: text('started_at', true),
    finishedAt: text('finished_at', true),
    status: row.status,
    model: text('model', false)!,
    strategy: text('strategy', false)!,
    engine: text('engine', false)!,
    sweepId: text('sweep_id', true),
    repeatIndex: row.repeat_index,
    machineId: text('machine_id', true),
    tags: tags as string[],
    notes: text('notes', false)!,
    errorClass: text('error_class', true),
    errorMessage: text('error_message', true),
    tflopsPerGpu: number('tflops_per_gpu'),
    tokensPerSecond: number('tokens_per_second'),
    stepSeconds: number('step_seconds'),
    peakGpuBytes: number('peak_gpu_bytes'),
    peakHostBytes: number('peak_host_bytes'),
    ...workload,
    configHash: row.config_hash === undefined ? null : text('config_hash', true),
  };
}
