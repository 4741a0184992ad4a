// The history store: every run, kept in SQLite in the data folder.
import type { RunFilter, RunSummary } from '../../contract';
import { openDatabase, explainSqliteError, type Database } from './database';

export { HistoryError } from './database';

interface RunRow {
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
}

function toSummary(row: RunRow): RunSummary {
  return {
    id: row.id,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    status: row.status,
    model: row.model,
    strategy: row.strategy,
    engine: row.engine,
    sweepId: row.sweep_id,
    repeatIndex: row.repeat_index,
    machineId: row.machine_id,
    tags: JSON.parse(row.tags) as string[],
    notes: row.notes,
    errorClass: row.error_class,
    errorMessage: row.error_message,
    tflopsPerGpu: row.tflops_per_gpu,
    tokensPerSecond: row.tokens_per_second,
    stepSeconds: row.step_seconds,
    peakGpuBytes: row.peak_gpu_bytes,
    peakHostBytes: row.peak_host_bytes,
  };
}

export class HistoryStore {
  readonly db: Database;
  constructor(readonly dataDir: string) {
    this.db = openDatabase(dataDir);
  }

  listRuns(filter: RunFilter = {}): { runs: RunSummary[]; total: number } {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (filter.model) (where.push('model = ?'), params.push(filter.model));
    if (filter.strategy) (where.push('strategy = ?'), params.push(filter.strategy));
    if (filter.status) (where.push('status = ?'), params.push(filter.status));
    if (filter.machineId) (where.push('machine_id = ?'), params.push(filter.machineId));
    if (filter.since) (where.push('created_at >= ?'), params.push(filter.since));
    if (filter.until) (where.push('created_at <= ?'), params.push(filter.until));
    if (filter.tag) (where.push('EXISTS (SELECT 1 FROM json_each(runs.tags) WHERE value = ?)'), params.push(filter.tag));
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    try {
      const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM runs ${clause}`).get(...params) as { n: number }).n;
      const rows = this.db
        .prepare(`SELECT * FROM runs ${clause} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`)
        .all(...params, filter.limit ?? 1000, filter.offset ?? 0) as unknown as RunRow[];
      return { runs: rows.map(toSummary), total };
    } catch (error) {
      throw explainSqliteError(error, this.dataDir);
    }
  }

  close(): void {
    this.db.close();
  }
}

export function openHistory(dataDir: string): HistoryStore {
  return new HistoryStore(dataDir);
}
