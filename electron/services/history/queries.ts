// History queries beyond a run's lifecycle: the list with its filters, repeat groups with
// statistics, deleting and annotating runs (the comparison of selected runs is compare.ts). SQL
// stays here; the figures are computed by stats.ts, so the UI, CLI and reports agree.
import { ApiError, METRICS, strategyLabel, type CompareGroup, type MetricId, type RunFilter, type RunSummary } from '../../contract';
import { inTransaction, type Database } from './database';
import { SUMMARY_COLUMNS, summaryFromRow, summaryRowOf, type SummaryRow } from './summary-columns';
import { repeatStats } from './stats';

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
export const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** Each field of a run filter and its condition, in the order the clause lists them. */
const FILTER_CONDITIONS: [field: 'model' | 'strategy' | 'status' | 'machineId' | 'since' | 'until' | 'tag', condition: string][] = [
  ['model', 'model = ?'],
  ['strategy', 'strategy = ?'],
  ['status', 'status = ?'],
  ['machineId', 'machine_id = ?'],
  ['since', 'created_at >= ?'],
  ['until', 'created_at <= ?'],
  ['tag', 'EXISTS (SELECT 1 FROM json_each(runs.tags) WHERE value = ?)'],
];

/** WHERE clause of a run filter (the same fields `runs/list` takes). */
export function filterClause(filter: RunFilter): { clause: string; params: (string | number)[] } {
  const given = FILTER_CONDITIONS.filter(([field]) => filter[field]);
  return {
    clause: given.length ? `WHERE ${given.map(([, condition]) => condition).join(' AND ')}` : '',
    params: given.map(([field]) => filter[field]!),
  };
}

// ---------------------------------------------------------------- the list

/** `runs/list`: newest first, filtered; `total` counts every match beyond the page. */
export function listRuns(db: Database, filter: RunFilter = {}): { runs: RunSummary[]; total: number } {
  const { clause, params } = filterClause(filter);
  const limit = filter.limit ?? 1000;
  const offset = filter.offset ?? 0;
  const stmt = db.prepare(`SELECT ${SUMMARY_COLUMNS.join(', ')} FROM runs ${clause} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`);
  stmt.setReturnArrays(true);
  const rows = stmt.all(...params, limit, offset) as unknown as unknown[][];
  const runs = rows.map((v) => summaryFromRow(summaryRowOf(v)));
  // The count only when the page may not hold every match.
  const total =
    offset === 0 && runs.length < limit
      ? runs.length
      : (db.prepare(`SELECT COUNT(*) AS n FROM runs ${clause}`).get(...params) as { n: number }).n;
  return { runs, total };
}

// ---------------------------------------------------------------- repeat groups

/** Repeats are runs of the same sweep and machine that ran the same setup: one config hash (engine,
 *  config, model, batch shape — two micro batches of one strategy are two groups), or, for runs
 *  stored before specs carried a hash, the same model, strategy and engine. */
export function groupKey(r: Pick<RunSummary, 'sweepId' | 'model' | 'strategy' | 'engine' | 'machineId' | 'configHash'>): string {
  if (r.configHash) return [r.sweepId ?? '-', r.strategy, r.configHash, r.machineId ?? '-'].join('|');
  return [r.sweepId ?? '-', r.model, r.strategy, r.engine, r.machineId ?? '-'].join('|');
}

const METRIC_COLUMN: Record<Exclude<MetricId, 'peakNvmeBytes'>, keyof RunSummary> = {
  tflopsPerGpu: 'tflopsPerGpu',
  tokensPerSecond: 'tokensPerSecond',
  stepSeconds: 'stepSeconds',
  peakGpuBytes: 'peakGpuBytes',
  peakHostBytes: 'peakHostBytes',
};

export interface Groupable extends RunSummary {
  peakNvmeBytes?: number | null;
}

function metricValue(run: Groupable, metric: MetricId): number | null {
  if (metric === 'peakNvmeBytes') return run.peakNvmeBytes ?? null;
  return num(run[METRIC_COLUMN[metric]]);
}

/** Runs grouped into repeats, in order of first appearance, with statistics per metric. */
export function groupRepeats(runs: readonly Groupable[]): Omit<CompareGroup, 'deltaPct' | 'speedup' | 'isBaseline' | 'label'>[] {
  const byKey = new Map<string, Groupable[]>();
  for (const r of runs) {
    const key = groupKey(r);
    const list = byKey.get(key) ?? [];
    list.push(r);
    byKey.set(key, list);
  }
  return [...byKey.entries()].map(([key, members]) => {
    members.sort((a, b) => a.repeatIndex - b.repeatIndex || a.createdAt.localeCompare(b.createdAt));
    const first = members[0];
    const stats = Object.fromEntries(
      METRICS.map((m) => [m.id, repeatStats(members.map((r) => metricValue(r, m.id)))]),
    ) as CompareGroup['stats'];
    return {
      key,
      model: first.model,
      strategy: first.strategy,
      engine: first.engine,
      machineId: first.machineId,
      sweepId: first.sweepId,
      configHash: first.configHash ?? null,
      runIds: members.map((r) => r.id),
      stats,
    };
  });
}

/** Repeat groups over the whole history (or a filtered part): `runs --group` in the CLI. */
export function listRepeatGroups(db: Database, filter: RunFilter = {}) {
  const { clause, params } = filterClause(filter);
  const rows = db.prepare(`SELECT * FROM runs ${clause} ORDER BY created_at, id`).all(...params) as unknown as SummaryRow[];
  return groupRepeats(rows.map(summaryFromRow)).map((g) => ({ ...g, label: strategyLabel(g.strategy) }));
}

// ---------------------------------------------------------------- edits

export function deleteRuns(db: Database, ids: readonly string[]): number {
  const unique = [...new Set(ids)];
  return inTransaction(db, () => {
    const busy = db
      .prepare(`SELECT id FROM runs WHERE id IN (${placeholders(unique.length)}) AND status IN ('queued', 'running')`)
      .all(...unique) as unknown as { id: string }[];
    if (busy.length)
      throw new ApiError('busy', `Run ${busy.map((b) => b.id).join(', ')} is still queued or running; cancel it first.`, 'ids');
    // Samples, details and import records go with the run (ON DELETE CASCADE).
    const deleted = Number(db.prepare(`DELETE FROM runs WHERE id IN (${placeholders(unique.length)})`).run(...unique).changes);
    db.exec('DELETE FROM snapshots WHERE id NOT IN (SELECT snapshot_id FROM runs WHERE snapshot_id IS NOT NULL)');
    return deleted;
  });
}

export function updateRun(db: Database, id: string, change: { tags?: string[]; notes?: string }): RunSummary {
  return inTransaction(db, () => {
    const row = db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as unknown as SummaryRow | undefined;
    if (!row) throw new ApiError('not_found', `No stored run with id ${id}.`, 'id');
    // Tags: trimmed, unique, in the order given.
    const tags = change.tags ? [...new Set(change.tags.map((t) => t.trim()).filter(Boolean))] : summaryFromRow(row).tags;
    const notes = change.notes ?? row.notes;
    db.prepare('UPDATE runs SET tags = ?, notes = ? WHERE id = ?').run(JSON.stringify(tags), notes, id);
    return summaryFromRow({ ...row, tags: JSON.stringify(tags), notes });
  });
}
