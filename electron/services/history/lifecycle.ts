// The run lifecycle in SQLite: queued → running → completed | failed | cancelled | interrupted.
// Every transition is one small UPDATE so a crash between two of them leaves a consistent row;
// the large JSON documents go to run_details, machine snapshots to snapshots (deduplicated).
import crypto from 'node:crypto';
import type { RunStatus, StoredResult } from '../../contract';
import { inTransaction, type Database } from './database';
import { ownerAlive } from './owner';
import { fillWorkloadColumns } from './workload-columns';

export interface NewRun {
  id: string;
  sweepId: string | null;
  repeatIndex: number;
  model: string;
  strategy: string;
  engine: string;
  steps: number;
  warmup: number;
  tags?: string[];
  notes?: string;
  spec?: unknown;
  predicted?: { tflopsPerGpu?: number | null; stepSeconds?: number | null } & Record<string, unknown>;
}

export interface RunStart {
  snapshot?: unknown;
  machineId?: string | null;
  logPath?: string | null;
  spec?: unknown;
}

export type FinalStatus = Extract<RunStatus, 'completed' | 'failed' | 'cancelled' | 'interrupted'>;

export interface RunEnd {
  status: FinalStatus;
  errorClass?: string | null;
  errorMessage?: string | null;
  errorFix?: string | null;
  exitCode?: number | null;
  exitSignal?: string | null;
  /** The runner's result message; the summary columns are taken from it. */
  result?: ResultLike | null;
}

/** The runner's result message as history stores it and reads it back (contract StoredResult: the
 *  summary columns take its medians and peaks; a partial one, as older runs and imports have, is fine). */
export type ResultLike = StoredResult;

const now = () => new Date().toISOString();
const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
const finite = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

export function createRun(db: Database, owner: string, run: NewRun): void {
  inTransaction(db, () => {
    db.prepare(
      `INSERT INTO runs (id, created_at, status, model, strategy, engine, sweep_id, repeat_index, tags, notes,
         owner, steps, warmup, predicted_tflops_per_gpu, predicted_step_seconds)
       VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      run.id,
      now(),
      run.model,
      run.strategy,
      run.engine,
      run.sweepId,
      run.repeatIndex,
      JSON.stringify(run.tags ?? []),
      run.notes ?? '',
      owner,
      run.steps,
      run.warmup,
      finite(run.predicted?.tflopsPerGpu),
      finite(run.predicted?.stepSeconds),
    );
    db.prepare('INSERT INTO run_details (run_id, spec, predicted) VALUES (?, ?, ?)').run(run.id, json(run.spec), json(run.predicted));
    // Workload columns (seq, micro batch, world size, nodes, precision, config hash) from the spec.
    fillWorkloadColumns(db, run.id);
  });
}

/** Store a machine snapshot once per distinct content; returns its id. */
export function putSnapshot(db: Database, machine: unknown): string {
  const body = JSON.stringify(machine);
  // Detection time and duration change on every call without the machine changing.
  const { detectedAt: _a, detectionMs: _b, ...stable } = (machine ?? {}) as Record<string, unknown>;
  const id = crypto.createHash('sha256').update(JSON.stringify(stable)).digest('hex').slice(0, 32);
  const m = (machine ?? {}) as { machineId?: unknown; hostname?: unknown; detectedAt?: unknown };
  db.prepare('INSERT OR IGNORE INTO snapshots (id, machine_id, hostname, captured_at, body) VALUES (?, ?, ?, ?, ?)').run(
    id,
    typeof m.machineId === 'string' ? m.machineId : null,
    typeof m.hostname === 'string' ? m.hostname : '',
    typeof m.detectedAt === 'string' ? m.detectedAt : now(),
    body,
  );
  return id;
}

export function startRun(db: Database, id: string, start: RunStart): void {
  inTransaction(db, () => {
    const snapshotId = start.snapshot === undefined ? null : putSnapshot(db, start.snapshot);
    const changed = db
      .prepare(
        `UPDATE runs SET status = 'running', started_at = ?, snapshot_id = COALESCE(?, snapshot_id),
           machine_id = COALESCE(?, machine_id), log_path = COALESCE(?, log_path)
         WHERE id = ? AND status = 'queued'`,
      )
      .run(now(), snapshotId, start.machineId ?? null, start.logPath ?? null, id).changes;
    if (Number(changed) !== 1) throw new Error(`run ${id} is not queued; it cannot start`);
    if (start.spec !== undefined) db.prepare('UPDATE run_details SET spec = ? WHERE run_id = ?').run(json(start.spec), id);
  });
}

export function recordDocument(db: Database, id: string, field: 'hello' | 'config', value: unknown): void {
  db.prepare(`UPDATE run_details SET ${field} = ? WHERE run_id = ?`).run(json(value), id);
}

/** Final transition. Only a queued/running row moves: a row already final keeps its first end. */
export function finishRun(db: Database, id: string, end: RunEnd): boolean {
  return inTransaction(db, () => {
    const r = end.result ?? null;
    const changed = db
      .prepare(
        `UPDATE runs SET status = ?, finished_at = ?, error_class = ?, error_message = ?, error_fix = ?,
           exit_code = ?, exit_signal = ?, tflops_per_gpu = ?, tokens_per_second = ?, step_seconds = ?,
           peak_gpu_bytes = ?, peak_host_bytes = ?
         WHERE id = ? AND status IN ('queued', 'running')`,
      )
      .run(
        end.status,
        now(),
        end.errorClass ?? null,
        end.errorMessage ?? null,
        end.errorFix ?? null,
        end.exitCode ?? null,
        end.exitSignal ?? null,
        finite(r?.tflopsPerGpu?.median),
        finite(r?.tokensPerSecond?.median),
        finite(r?.stepSeconds?.median),
        finite(r?.peakGpuBytes),
        finite(r?.peakHostBytes),
        id,
      ).changes;
    if (r) db.prepare('UPDATE run_details SET result = ? WHERE run_id = ?').run(json(r), id);
    // what the spec did not say, from the runner's config line now stored beside it (a run older than the spec)
    if (Number(changed) === 1) fillWorkloadColumns(db, id);
    return Number(changed) === 1;
  });
}

export interface RecoveredRun {
  id: string;
  previousStatus: 'queued' | 'running';
}

/** Start-up recovery: queued/running rows whose owner process is gone become 'interrupted'. */
export function recoverOrphans(db: Database): RecoveredRun[] {
  const rows = db.prepare("SELECT id, status, owner FROM runs WHERE status IN ('queued', 'running')").all() as unknown as {
    id: string;
    status: 'queued' | 'running';
    owner: string | null;
  }[];
  const orphans = rows.filter((r) => !ownerAlive(r.owner));
  if (orphans.length === 0) return [];
  inTransaction(db, () => {
    const mark = db.prepare(
      `UPDATE runs SET status = 'interrupted', finished_at = ?,
         error_message = COALESCE(error_message, ?) WHERE id = ? AND status IN ('queued', 'running')`,
    );
    for (const r of orphans)
      mark.run(
        now(),
        r.status === 'running'
          ? 'The app or the machine stopped while this run was running; its samples up to then are kept.'
          : 'The app stopped before this queued run could start.',
        r.id,
      );
  });
  return orphans.map((r) => ({ id: r.id, previousStatus: r.status }));
}

/** On a clean close: this store's own unfinished rows are interrupted too (never left running). */
export function interruptOwned(db: Database, owner: string): number {
  const result = db
    .prepare(
      `UPDATE runs SET status = 'interrupted', finished_at = ?,
         error_message = COALESCE(error_message, 'The app closed while this run was unfinished.')
       WHERE owner = ? AND status IN ('queued', 'running')`,
    )
    .run(now(), owner);
  return Number(result.changes);
}

/** The scheduler's job a run ran as (replaced as its state changes). */
export function recordJob(db: Database, id: string, job: unknown): void {
  db.prepare('INSERT INTO run_jobs (run_id, body) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET body = excluded.body').run(id, json(job));
}

export function readJob(db: Database, id: string): unknown {
  const row = db.prepare('SELECT body FROM run_jobs WHERE run_id = ?').get(id) as { body: string } | undefined;
  if (!row) return null;
  try {
    return JSON.parse(row.body) as unknown;
  } catch {
    return null;
  }
}

/** Runs that were jobs and whose end this app did not see (a restart marked them interrupted, or they still run).
 *  An imported run is never one: its job id is another cluster's, and this machine's Slurm would answer about a stranger. */
export function unsettledJobRuns(db: Database): { id: string; status: string; body: string }[] {
  return db
    .prepare(
      `SELECT r.id, r.status, j.body FROM runs r JOIN run_jobs j ON j.run_id = r.id
       WHERE r.status IN ('interrupted', 'running', 'queued')
         AND NOT EXISTS (SELECT 1 FROM run_imports i WHERE i.run_id = r.id) ORDER BY r.created_at`,
    )
    .all() as unknown as { id: string; status: string; body: string }[];
}

/** The job's real end, learned after a restart: an interrupted (or orphaned) job run gets it. */
export function settleJobRun(db: Database, id: string, end: RunEnd): boolean {
  // Back to 'running' for finishRun's one rule of the final transition (its own transaction); a
  // failure between the two leaves a running row of a dead owner, which recovery interrupts again.
  db.prepare("UPDATE runs SET status = 'running', error_message = NULL WHERE id = ? AND status IN ('interrupted', 'queued')").run(id);
  return finishRun(db, id, end);
}
