// The history store: every run, kept in SQLite in the data folder.
import path from 'node:path';
import {
  readStoredDocument,
  SlurmJobRecordSchema,
  type Comparison,
  type ImportResult,
  type ResourceRecord,
  type RunDetail,
  type RunFilter,
  type RunSample,
  type RunsFile,
  type RunSummary,
  type UnparsedDocument,
} from '../../contract';
import { openDatabase, explainSqliteError, type Database } from './database';
import {
  createRun,
  finishRun,
  interruptOwned,
  recordDocument,
  recoverOrphans,
  readJob,
  recordJob,
  settleJobRun,
  startRun,
  unsettledJobRuns,
  type NewRun,
  type RecoveredRun,
  type RunEnd,
  type RunStart,
} from './lifecycle';
import { readLogTail } from './log-tail';
import { repeatStats } from './stats';
import { newOwner } from './owner';
import { forgetStatements, insertSamples, readSamples } from './samples';
import { readResources, storeResources } from './resource-samples';
import { compareRuns } from './compare';
import { deleteRuns, listRepeatGroups, listRuns, updateRun } from './queries';
import { summaryFromRow, type SummaryRow } from './summary-columns';
import { exportRuns, importRuns, type ImportOptions } from './import-export';

export { HistoryError } from './database';
export { ownerAlive } from './owner';
export { readRunsFile, parseRunsText, writeRunsFile, MAX_RUNS_FILE_BYTES } from './runs-file';
export { convertRunnerSweep } from './raw-sweep';
export { repeatStats, deltaPercent, speedup } from './stats';
export type { NewRun, RecoveredRun, RunEnd, RunStart, FinalStatus, ResultLike } from './lifecycle';

interface DetailRow {
  error_fix: string | null;
  exit_code: number | null;
  exit_signal: string | null;
  steps: number | null;
  warmup: number | null;
  log_path: string | null;
  snapshot_id: string | null;
  spec: string | null;
  hello: string | null;
  config: string | null;
  result: string | null;
  predicted: string | null;
  snapshot: string | null;
}

/** Filters whose `runs/list` page is kept between writes (the oldest goes first). */
const LIST_CACHE_ENTRIES = 64;

export class HistoryStore {
  readonly db: Database;
  /** 'host:pid:token' stamped on the rows this store runs (see owner.ts). */
  readonly owner: string;
  /** Runs found queued/running at open whose process was gone: now 'interrupted'. */
  readonly recovered: RecoveredRun[];
  private readonly releaseOwner: () => void;

  constructor(readonly dataDir: string) {
    this.db = openDatabase(dataDir);
    const { owner, release } = newOwner();
    this.owner = owner;
    this.releaseOwner = release;
    try {
      this.recovered = recoverOrphans(this.db);
    } catch (error) {
      throw explainSqliteError(error, path.join(this.dataDir, 'history.db')); // the file: its message names the folder
    }
  }

  /**
   * The same recovery while this store is open: rows of another process on this data folder that
   * died since (a serve SIGKILLed beside this one) become 'interrupted' now, not at the next start.
   */
  recoverDeadOwners(): RecoveredRun[] {
    // Runs every few seconds: the kept runs/list pages go only when a row changed.
    const recovered = this.guard(() => recoverOrphans(this.db));
    if (recovered.length) this.runsWrites++;
    return recovered;
  }

  /** The owners ('host:pid:token') of a sweep's runs still queued or running. */
  unfinishedOwners(sweepId: string): string[] {
    const statement = "SELECT DISTINCT owner FROM runs WHERE sweep_id = ? AND status IN ('queued', 'running') AND owner IS NOT NULL";
    const rows = this.guard(() => this.db.prepare(statement).all(sweepId) as unknown as { owner: string }[]);
    return rows.map((r) => r.owner);
  }

  /** The notice to show for `recovered` (null when nothing was recovered). */
  recoveryNotice(): string | null {
    const running = this.recovered.filter((r) => r.previousStatus === 'running').length;
    const queued = this.recovered.length - running;
    if (this.recovered.length === 0) return null;
    const parts = [running ? `${running} run(s) left running` : '', queued ? `${queued} queued run(s)` : ''].filter(Boolean);
    return `${parts.join(' and ')} when Offload Studio last stopped ${this.recovered.length === 1 ? 'was' : 'were'} marked interrupted; their samples up to then are kept.`;
  }

  // ---- run lifecycle (the engine writes these; see lifecycle.ts) ----
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw explainSqliteError(error, path.join(this.dataDir, 'history.db')); // the file: its message names the folder
    }
  }
  /** A write that may change what `runs/list` shows (every write but samples): the kept pages go. */
  private write<T>(work: () => T): T {
    try {
      return this.guard(work);
    } finally {
      this.runsWrites++;
    }
  }
  private runsWrites = 0;
  createRun(run: NewRun): void {
    this.write(() => createRun(this.db, this.owner, run));
  }
  startRun(id: string, start: RunStart): void {
    this.write(() => startRun(this.db, id, start));
  }
  recordHello(id: string, hello: unknown): void {
    this.write(() => recordDocument(this.db, id, 'hello', hello));
  }
  recordConfig(id: string, config: unknown): void {
    this.write(() => recordDocument(this.db, id, 'config', config));
  }
  appendSamples(id: string, samples: readonly RunSample[]): void {
    // samples only: the runs/list pages kept stay valid
    this.guard(() => insertSamples(this.db, id, samples));
  }
  /** Returns false when the run had already ended (the first end wins). */
  finishRun(id: string, end: RunEnd): boolean {
    return this.write(() => finishRun(this.db, id, end));
  }
  /** The scheduler's job a run ran as (a Slurm job's id, nodes and state). */
  recordJob(id: string, job: unknown): void {
    this.guard(() => recordJob(this.db, id, job));
  }
  job(id: string): unknown {
    return this.guard(() => readJob(this.db, id));
  }
  unsettledJobRuns(): { id: string; status: string; body: string }[] {
    return this.guard(() => unsettledJobRuns(this.db));
  }
  settleJobRun(id: string, end: RunEnd): boolean {
    return this.write(() => settleJobRun(this.db, id, end));
  }
  samples(id: string): RunSample[] {
    return this.guard(() => readSamples(this.db, id));
  }
  /** The run's resource record, written once when it ends; a resource write does not change runs/list. */
  storeResources(id: string, record: ResourceRecord): void {
    this.guard(() => storeResources(this.db, id, record));
  }
  resources(id: string): ResourceRecord | null {
    return this.guard(() => readResources(this.db, id));
  }

  getRun(id: string, logLines = 200): RunDetail | null {
    return this.guard(() => {
      const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as unknown as SummaryRow | undefined;
      if (!row) return null;
      const d = this.db
        .prepare(
          `SELECT r.error_fix, r.exit_code, r.exit_signal, r.steps, r.warmup, r.log_path, r.snapshot_id,
             d.spec, d.hello, d.config, d.result, d.predicted, s.body AS snapshot
           FROM runs r LEFT JOIN run_details d ON d.run_id = r.id LEFT JOIN snapshots s ON s.id = r.snapshot_id
           WHERE r.id = ?`,
        )
        .get(id) as unknown as DetailRow;
      // Each document parsed once, here, as its lenient reading (contract stored.ts); one that is not
      // JSON or not of its owner's shape is named in `unparsed` with what was stored, and the run is kept.
      const unparsed: UnparsedDocument[] = [];
      const read = <K extends 'spec' | 'hello' | 'config' | 'result' | 'predicted' | 'snapshot'>(document: K, text: string | null) => {
        const r = readStoredDocument(document, text);
        if (r.unparsed) unparsed.push(r.unparsed);
        return r.value;
      };
      return {
        summary: summaryFromRow(row),
        errorFix: d.error_fix,
        exitCode: d.exit_code,
        exitSignal: d.exit_signal,
        steps: d.steps,
        warmup: d.warmup,
        spec: read('spec', d.spec),
        hello: read('hello', d.hello),
        config: read('config', d.config),
        result: read('result', d.result),
        predicted: read('predicted', d.predicted),
        snapshotId: d.snapshot_id,
        snapshot: read('snapshot', d.snapshot),
        samples: readSamples(this.db, id),
        logPath: d.log_path,
        logTail: readLogTail(d.log_path, logLines, path.join(this.dataDir, 'logs')),
        // A job record that does not read as one (hand edit, another version) is left out, not fatal.
        job: SlurmJobRecordSchema.safeParse(readJob(this.db, id)).data ?? null,
        ...(unparsed.length ? { unparsed } : {}),
      };
    });
  }

  /** The latest stored snapshot of each machine that has runs here (machineId → detect body). */
  machineSnapshots(): { machineId: string; body: unknown }[] {
    return this.guard(() => {
      const rows = this.db
        .prepare(
          `SELECT s.machine_id AS machineId, s.body AS body FROM snapshots s
            WHERE s.machine_id IS NOT NULL AND s.captured_at = (SELECT MAX(t.captured_at) FROM snapshots t WHERE t.machine_id = s.machine_id)
            GROUP BY s.machine_id`,
        )
        .all() as unknown as { machineId: string; body: string | null }[];
      return rows.map((r) => {
        let body: unknown = null;
        try {
          body = r.body ? JSON.parse(r.body) : null;
        } catch {
          body = null; // a damaged snapshot only loses this machine's match
        }
        return { machineId: r.machineId, body };
      });
    });
  }
  /**
   * Seconds a run spends before and around its steps (interpreter, engine import, model build,
   * DeepSpeed init, exit): wall time less the sum of all its step times, median over the latest
   * completed runs of these machines — of `model` where there are any (an 8B model builds longer
   * than a tiny one), else of any model. Null without such runs. What time estimates count per run.
   */
  engineStartSeconds(machineIds: readonly string[], model?: string): { seconds: number; runs: number; sameModel: boolean } | null {
    if (machineIds.length === 0) return null;
    return this.guard(() => {
      const rows = this.db
        .prepare(
          `SELECT r.model AS model, (julianday(r.finished_at) - julianday(r.started_at)) * 86400.0 - COALESCE((SELECT SUM(s.step_seconds) FROM samples s WHERE s.run_id = r.id), 0) AS start
             FROM runs r
            WHERE r.status = 'completed' AND r.started_at IS NOT NULL AND r.finished_at IS NOT NULL
              AND r.machine_id IN (${machineIds.map(() => '?').join(', ')})
            ORDER BY r.finished_at DESC LIMIT 200`,
        )
        .all(...machineIds) as unknown as { model: string | null; start: number | null }[];
      const valid = rows.filter((r) => typeof r.start === 'number' && Number.isFinite(r.start) && r.start > 0);
      const same = model ? valid.filter((r) => r.model === model) : [];
      const stats = repeatStats((same.length ? same : valid).slice(0, 20).map((r) => r.start));
      return stats ? { seconds: stats.median, runs: stats.n, sameModel: same.length > 0 } : null;
    });
  }

  /**
   * Seconds per step of each configuration (by config hash) as its completed runs on these machines
   * took them: each run's mean over all its steps (warm-up included, as a run's wall time has them),
   * median over the latest 20 runs. What a sweep's time estimate counts per step where a run of the
   * same configuration was measured — a CPU smoke run has no prediction at all, and a measured step
   * beats a predicted one.
   */
  measuredStepSeconds(machineIds: readonly string[], configHashes: readonly string[]): Record<string, { seconds: number; runs: number }> {
    if (machineIds.length === 0 || configHashes.length === 0) return {};
    return this.guard(() => {
      const rows = this.db
        .prepare(
          `SELECT r.config_hash AS hash, (SELECT AVG(s.step_seconds) FROM samples s WHERE s.run_id = r.id) AS step
             FROM runs r
            WHERE r.status = 'completed' AND r.config_hash IN (${configHashes.map(() => '?').join(', ')})
              AND r.machine_id IN (${machineIds.map(() => '?').join(', ')})
            ORDER BY r.finished_at DESC LIMIT 2000`,
        )
        .all(...configHashes, ...machineIds) as unknown as { hash: string; step: number | null }[];
      const out: Record<string, { seconds: number; runs: number }> = {};
      for (const hash of new Set(rows.map((r) => r.hash))) {
        const steps = rows
          .filter((r) => r.hash === hash && typeof r.step === 'number' && Number.isFinite(r.step) && r.step > 0)
          .slice(0, 20)
          .map((r) => r.step as number);
        const stats = repeatStats(steps);
        if (stats) out[hash] = { seconds: stats.median, runs: stats.n };
      }
      return out;
    });
  }

  /**
   * The best completed tokens/s of one workload shape (sequence, world size, model width and depth) on
   * these machines — the sequence and world size as the runs columns keep them (workload-columns.ts), split by whether the run's spec came from the user's file `sha256` (plan/user-config's
   * measured gain: the user's config against the best other configuration measured here).
   */
  bestTokensPerSecondByUserConfig(
    machineIds: readonly string[],
    shape: { seqLen: number; worldSize: number; hiddenSize: number; numLayers: number },
    sha256: string,
  ): { yours: { tps: number | null; runs: number }; others: { tps: number | null; runs: number } } | null {
    if (machineIds.length === 0) return null;
    return this.guard(() => {
      const rows = this.db
        .prepare(
          `SELECT json_extract(d.spec, '$.userConfig.sha256') IS ? AS mine, MAX(r.tokens_per_second) AS tps, COUNT(*) AS n
             FROM runs r JOIN run_details d ON d.run_id = r.id
            WHERE r.status = 'completed' AND r.tokens_per_second > 0 AND r.machine_id IN (${machineIds.map(() => '?').join(', ')})
              AND r.seq_len = ? AND r.world_size = ?
              AND json_extract(d.spec, '$.model.hiddenSize') = ? AND json_extract(d.spec, '$.model.numLayers') = ?
            GROUP BY mine`,
        )
        .all(sha256, ...machineIds, shape.seqLen, shape.worldSize, shape.hiddenSize, shape.numLayers) as unknown as {
        mine: number;
        tps: number | null;
        n: number;
      }[];
      const side = (mine: number) => {
        const row = rows.find((r) => r.mine === mine);
        return { tps: row?.tps ?? null, runs: row?.n ?? 0 };
      };
      return { yours: side(1), others: side(0) };
    });
  }

  /**
   * `runs/list`: filters and their indexes live with the other history queries (queries.ts). A
   * page is kept per filter until the runs change (a write of this store other than samples, or a
   * commit by another connection: `PRAGMA data_version`), and handed out deep-frozen: 100 clients
   * reading history with filters during a sweep cost a query per filter per run transition, not
   * one per request. Code writing through `db` directly is not seen.
   */
  listRuns(filter: RunFilter = {}): { runs: RunSummary[]; total: number } {
    return this.guard(() => {
      const version = this.dataVersion();
      if (version !== this.listVersion) {
        this.listCache.clear();
        this.listVersion = version;
      }
      const key = JSON.stringify(filter);
      const hit = this.listCache.get(key);
      if (hit) return hit;
      const page = listRuns(this.db, filter);
      for (const run of page.runs) Object.freeze(Object.freeze(run).tags);
      const frozen = Object.freeze({ runs: Object.freeze(page.runs) as RunSummary[], total: page.total }); // read-only: shared by every caller
      if (this.listCache.size >= LIST_CACHE_ENTRIES) this.listCache.delete(this.listCache.keys().next().value!);
      this.listCache.set(key, frozen);
      return frozen;
    });
  }
  private readonly listCache = new Map<string, { runs: RunSummary[]; total: number }>();
  private listVersion = '';
  private versionStatement: ReturnType<Database['prepare']> | null = null;
  /** This store's writes to runs, and SQLite's count of commits by other connections. */
  private dataVersion(): string {
    // SQLite is asked once per event-loop turn: the requests read in one turn see one state.
    if (this.othersVersion === null) {
      this.versionStatement ??= this.db.prepare('PRAGMA data_version');
      this.othersVersion = (this.versionStatement.get() as { data_version: number }).data_version;
      setImmediate(() => (this.othersVersion = null));
    }
    return `${this.runsWrites}:${this.othersVersion}`;
  }
  private othersVersion: number | null = null;

  // ---- comparison, repeat groups, edits, import/export (queries.ts, import-export.ts) ----
  compare(ids: readonly string[], baselineId?: string): Comparison {
    return this.guard(() => compareRuns(this.db, ids, baselineId));
  }
  repeatGroups(filter: RunFilter = {}): ReturnType<typeof listRepeatGroups> {
    return this.guard(() => listRepeatGroups(this.db, filter));
  }
  deleteRuns(ids: readonly string[]): number {
    return this.write(() => deleteRuns(this.db, ids));
  }
  updateRun(id: string, change: { tags?: string[]; notes?: string }): RunSummary {
    return this.write(() => updateRun(this.db, id, change));
  }
  exportRuns(ids?: readonly string[], source: RunsFile['source'] = null): RunsFile {
    return this.guard(() => exportRuns(this.db, ids, source));
  }
  importRuns(content: RunsFile, options: ImportOptions): ImportResult {
    return this.write(() => importRuns(this.db, content, options));
  }

  close(): void {
    if (!this.db.isOpen) return;
    try {
      interruptOwned(this.db, this.owner);
    } finally {
      this.releaseOwner();
      // Everything written lives in history.db-wal until a checkpoint. SQLite checkpoints on the
      // last close only when no statement is left open, and cached statements are (the binding
      // cannot finalize them): without this, history.db held only the schema and copying it (a
      // backup, another machine) lost every run. TRUNCATE also leaves a 0-byte -wal behind.
      try {
        this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      } catch {
        // busy (another process reading) or read-only: its own close, or the next open, checkpoints
      }
      forgetStatements(this.db);
      this.versionStatement = null;
      this.listCache.clear();
      this.db.close();
    }
  }
}

export function openHistory(dataDir: string): HistoryStore {
  return new HistoryStore(dataDir);
}
