// Per-step samples: batch-inserted in one transaction per batch (a transaction per row would
// cost a WAL commit each), read back in step order through the (run_id, step) key.
import type { RunSample } from '../../contract';
import { inTransaction, type Database } from './database';

/** The column of each RunSample field in the `samples` table. The byte columns lack the `_bytes` of
 *  the naming rule (docs/architecture.md, "Names of figures"): migration 1 named them, and runs files
 *  carry the table's column names, so they stay; this table is where the two names meet. */
export const SAMPLE_COLUMN = {
  step: 'step',
  warmup: 'warmup',
  stepSeconds: 'step_seconds',
  tflopsPerGpu: 'tflops_per_gpu',
  tokensPerSecond: 'tokens_per_second',
  loss: 'loss',
  gpuAllocatedBytes: 'gpu_allocated',
  gpuReservedBytes: 'gpu_reserved',
  gpuPeakBytes: 'gpu_peak',
  hostRssBytes: 'host_rss',
} as const satisfies Record<keyof RunSample, string>;

type SampleRow = { [K in keyof RunSample as (typeof SAMPLE_COLUMN)[K]]: K extends 'warmup' ? number : RunSample[K] };
const COLUMNS = Object.values(SAMPLE_COLUMN).join(', ');

// SQLite stores NaN as NULL anyway; say so explicitly and keep Infinity out of REAL columns.
const num = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
// Byte counts above 2^53 are not exact (and SQLite hands such an INTEGER back as an error that
// would break runs/get for the run for good): a runner sending one gets null stored.
const int = (x: number | null | undefined): number | null =>
  typeof x === 'number' && Number.isSafeInteger(Math.round(x)) ? Math.round(x) : null;

const statements = new WeakMap<Database, ReturnType<Database['prepare']>>();

/** Drops the cached statement of a database being closed (so it can be collected). */
export function forgetStatements(db: Database): void {
  statements.delete(db);
}

export function insertSamples(db: Database, runId: string, samples: readonly RunSample[]): void {
  if (samples.length === 0) return;
  let insert = statements.get(db);
  if (!insert) {
    // OR REPLACE: a runner that repeats a step number (a restart inside the runner) keeps the last.
    insert = db.prepare(
      `INSERT OR REPLACE INTO samples (run_id, ${COLUMNS}) VALUES (?, ${Object.keys(SAMPLE_COLUMN)
        .map(() => '?')
        .join(', ')})`,
    );
    statements.set(db, insert);
  }
  const stmt = insert;
  inTransaction(db, () => {
    for (const s of samples)
      // in SAMPLE_COLUMN's order
      stmt.run(
        runId,
        s.step,
        s.warmup ? 1 : 0,
        num(s.stepSeconds) ?? 0,
        num(s.tflopsPerGpu),
        num(s.tokensPerSecond),
        num(s.loss),
        int(s.gpuAllocatedBytes),
        int(s.gpuReservedBytes),
        int(s.gpuPeakBytes),
        int(s.hostRssBytes),
      );
  });
}

export function readSamples(db: Database, runId: string): RunSample[] {
  const rows = db.prepare(`SELECT ${COLUMNS} FROM samples WHERE run_id = ? ORDER BY step`).all(runId) as unknown as SampleRow[];
  return rows.map((r) => ({
    step: r.step,
    warmup: r.warmup === 1,
    stepSeconds: r.step_seconds,
    tflopsPerGpu: r.tflops_per_gpu,
    tokensPerSecond: r.tokens_per_second,
    loss: r.loss,
    gpuAllocatedBytes: r.gpu_allocated,
    gpuReservedBytes: r.gpu_reserved,
    gpuPeakBytes: r.gpu_peak,
    hostRssBytes: r.host_rss,
  }));
}
