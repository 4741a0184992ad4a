// Runs as a JSON file, so results move between machines. The file holds the stored rows column by
// column (runs, run_details, snapshots, samples), so export → import → export gives the same
// runs whatever columns the schema has grown; a column this database lacks is named, not hidden.
// A run that ran as a Slurm job carries its job record (run_jobs) beside it.
// Import is one transaction: a full disk or a bad file leaves the database as it was.
import { ApiError, RUNS_FILE_FORMAT, SlurmJobRecordSchema, type ExportedRun, type ImportResult, type RunsFile } from '../../contract';
import { inTransaction, schemaVersion, type Database } from './database';
import { checkRows } from './import-checks';
import { fillWorkloadColumns } from './workload-columns';

type Row = Record<string, string | number | null>;

// A running row's owner is a live process lock on the exporting machine: not part of the result.
const RUN_COLUMNS_NOT_EXPORTED = new Set(['owner']);
// The run_details columns are JSON documents (see migration 2).
const parseDoc = (value: unknown): unknown => {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

function columns(db: Database, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as unknown as { name: string }[]).map((c) => c.name);
}

/** Only finished runs travel: a queued or running row is not a result yet. */
const FINISHED = "status NOT IN ('queued', 'running')";

export function exportRuns(db: Database, ids?: readonly string[], source: RunsFile['source'] = null): RunsFile {
  const unique = ids ? [...new Set(ids)] : null;
  const runRows = (unique
    ? db.prepare(`SELECT * FROM runs WHERE id IN (${placeholders(unique.length)}) ORDER BY created_at, id`).all(...unique)
    : db.prepare(`SELECT * FROM runs WHERE ${FINISHED} ORDER BY created_at, id`).all()) as unknown as Row[];
  if (unique) {
    const missing = unique.filter((id) => !runRows.some((r) => r.id === id));
    if (missing.length) throw new ApiError('not_found', `No stored run with id ${missing.join(', ')}.`, 'ids');
    const busy = runRows.filter((r) => r.status === 'queued' || r.status === 'running');
    if (busy.length) throw new ApiError('busy', `Run ${busy.map((r) => r.id).join(', ')} has not finished; export it when it has.`, 'ids');
  }
  const sampleColumns = columns(db, 'samples').filter((c) => c !== 'run_id');
  const detailStmt = db.prepare('SELECT * FROM run_details WHERE run_id = ?');
  const snapshotStmt = db.prepare('SELECT * FROM snapshots WHERE id = ?');
  const jobStmt = db.prepare('SELECT body FROM run_jobs WHERE run_id = ?');
  const sampleStmt = db.prepare(`SELECT ${sampleColumns.join(', ')} FROM samples WHERE run_id = ? ORDER BY step`);
  sampleStmt.setReturnArrays?.(true);
  const runs: ExportedRun[] = runRows.map((row) => {
    const run: Row = {};
    for (const [k, v] of Object.entries(row)) if (!RUN_COLUMNS_NOT_EXPORTED.has(k)) run[k] = v;
    const detailRow = detailStmt.get(row.id) as unknown as Row | undefined;
    const details = detailRow
      ? Object.fromEntries(
          Object.entries(detailRow)
            .filter(([k]) => k !== 'run_id')
            .map(([k, v]) => [k, parseDoc(v)]),
        )
      : null;
    const snapRow = row.snapshot_id ? (snapshotStmt.get(row.snapshot_id) as unknown as Row | undefined) : undefined;
    const snapshot = snapRow ? ({ ...snapRow, id: String(snapRow.id), body: parseDoc(snapRow.body) } as ExportedRun['snapshot']) : null;
    const raw = sampleStmt.all(row.id) as unknown[];
    const rows = raw.map((r) => (Array.isArray(r) ? (r as (number | null)[]) : sampleColumns.map((c) => (r as Row)[c] as number | null)));
    // A record that does not read as one (hand edit, another version) stays behind, as runs/get leaves it out.
    const jobRow = jobStmt.get(row.id) as unknown as { body: string } | undefined;
    const job = jobRow ? SlurmJobRecordSchema.safeParse(parseDoc(jobRow.body)).data : undefined;
    return { run: run as ExportedRun['run'], details, snapshot, samples: { columns: sampleColumns, rows }, ...(job ? { job } : {}) };
  });
  return { format: RUNS_FILE_FORMAT, version: 1, schemaVersion: schemaVersion(db), exportedAt: new Date().toISOString(), source, runs };
}

const toText = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

export interface ImportOptions {
  /** The file name recorded as where the runs came from. */
  file: string;
  /** Tags added to every imported run (the sample dataset gets 'sample'). */
  addTags?: string[];
  /** The request field a refusal points at ('path' or 'content'). */
  field?: string;
}

export function importRuns(db: Database, content: RunsFile, options: ImportOptions): ImportResult {
  checkRows(db, content, options.file, options.field ?? 'content');
  const runCols = new Set(columns(db, 'runs'));
  const detailCols = new Set(columns(db, 'run_details'));
  const snapshotCols = new Set(columns(db, 'snapshots'));
  const sampleCols = new Set(columns(db, 'samples'));
  const dropped = new Set<string>();
  const imported: string[] = [];
  const skipped: ImportResult['skipped'] = [];
  const exists = db.prepare('SELECT 1 FROM runs WHERE id = ?');
  const importedAt = new Date().toISOString();
  const seen = new Set<string>();

  const keep = (table: string, have: Set<string>, row: Record<string, unknown>) =>
    Object.entries(row).filter(([k]) => {
      if (have.has(k)) return true;
      dropped.add(`${table}.${k}`);
      return false;
    });
  const insert = (table: string, entries: [string, unknown][], orIgnore = false) =>
    db
      .prepare(
        `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO ${table} (${entries.map(([k]) => k).join(', ')}) VALUES (${placeholders(entries.length)})`,
      )
      .run(...(entries.map(([, v]) => v) as (string | number | null)[]));

  inTransaction(db, () => {
    for (const record of content.runs) {
      const id = record.run.id;
      if (seen.has(id)) {
        skipped.push({ id, reason: 'appears twice in the file; the first was imported' });
        continue;
      }
      seen.add(id);
      if (exists.get(id)) {
        skipped.push({ id, reason: 'already in this history (same id)' });
        continue;
      }
      if (record.run.status === 'queued' || record.run.status === 'running') {
        skipped.push({ id, reason: `was still ${record.run.status} where it was exported` });
        continue;
      }
      // The snapshot first: the run row references it.
      if (record.snapshot)
        insert('snapshots', keep('snapshots', snapshotCols, { ...record.snapshot, body: toText(record.snapshot.body) }), true);
      const run: Record<string, unknown> = { ...record.run };
      // A process lock of the exporting machine means nothing here (it is never exported either).
      for (const column of RUN_COLUMNS_NOT_EXPORTED) delete run[column];
      if (options.addTags?.length) {
        const tags = new Set<string>(typeof run.tags === 'string' ? (JSON.parse(run.tags) as string[]) : []);
        for (const t of options.addTags) tags.add(t);
        run.tags = JSON.stringify([...tags]);
      }
      if (run.snapshot_id && !record.snapshot) run.snapshot_id = null; // the file did not carry it
      insert('runs', keep('runs', runCols, run));
      if (record.details)
        insert('run_details', [
          ['run_id', id],
          ...keep('run_details', detailCols, Object.fromEntries(Object.entries(record.details).map(([k, v]) => [k, toText(v)]))),
        ]);
      const cols = record.samples.columns;
      const usable = cols.map((c) => sampleCols.has(c));
      cols.forEach((c, i) => !usable[i] && dropped.add(`samples.${c}`));
      const kept = cols.filter((_, i) => usable[i]);
      if (record.samples.rows.length && kept.length) {
        const stmt = db.prepare(`INSERT INTO samples (run_id, ${kept.join(', ')}) VALUES (?, ${placeholders(kept.length)})`);
        for (const r of record.samples.rows) stmt.run(id, ...r.filter((_, i) => usable[i]));
      }
      if (record.job)
        insert('run_jobs', [
          ['run_id', id],
          ['body', toText(record.job)],
        ]);
      // A file from before the workload columns, or one whose columns say nothing: fill them from the run's documents.
      fillWorkloadColumns(db, id);
      db.prepare('INSERT INTO run_imports (run_id, file, source_label, imported_at) VALUES (?, ?, ?, ?)').run(
        id,
        options.file,
        content.source?.label ?? null,
        importedAt,
      );
      imported.push(id);
    }
  });
  return { imported, skipped, source: content.source, droppedColumns: [...dropped].sort() };
}
