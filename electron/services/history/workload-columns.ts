// The workload columns of `runs` (contract workload-options.ts `column`, and the spec's config hash),
// filled in TypeScript from the one reading of a stored run (contract ranWorkloadOf): the runs list
// then says what the report and the calibration say — a two-node run is twice its GPUs per node
// there too, and a run older than the RunSpec gets its runner's figures. Filled when a run is created
// (its spec alone), when it ends (the runner's config line beside it) and when it is imported. The
// reading of more documents replaces the reading of fewer (a flat old spec reads as one GPU until its
// config line says six); a column the reading leaves empty keeps what it held (an imported file's).
// The SQL of migrations.ts (workloadColumnsUpdate) is only the backfill of rows stored before these columns.
import { ranWorkloadOf, readStoredDocument, WORKLOAD_COLUMNS } from '../../contract';
import type { Database } from './database';
import { MAX_STORED_COUNT } from './migrations';

/** A count a reader can use (a whole number from 0 to MAX_STORED_COUNT), else null: the columns never keep one no read survives. */
function storedCount(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_STORED_COUNT ? v : null;
}

const FILLED = [...WORKLOAD_COLUMNS.map((c) => c.name), 'config_hash'];

/** Fills run `id`'s workload columns from its stored documents. */
export function fillWorkloadColumns(db: Database, id: string): void {
  const d = db.prepare('SELECT spec, config, hello FROM run_details WHERE run_id = ?').get(id) as
    { spec: string | null; config: string | null; hello: string | null } | undefined;
  if (!d) return;
  const spec = readStoredDocument('spec', d.spec).value;
  const config = readStoredDocument('config', d.config).value;
  const hello = readStoredDocument('hello', d.hello).value;
  if (!spec && !config && !hello) return; // nothing says what the run ran
  const ran = ranWorkloadOf({ spec, config, hello });
  const values = WORKLOAD_COLUMNS.map((c) => {
    const v = ran[c.reads];
    return c.count ? storedCount(v) : typeof v === 'string' ? v : null;
  });
  const hash = typeof spec?.configHash === 'string' ? spec.configHash : null;
  db.prepare(`UPDATE runs SET ${FILLED.map((c) => `${c} = COALESCE(?, ${c})`).join(', ')} WHERE id = ?`).run(...values, hash, id);
}
