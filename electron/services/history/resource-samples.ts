// The resource record of a run: written once when the run ends, read whole.
import { ResourceRecordSchema, type ResourceRecord } from '../../contract';
import { storedDataError, type Database } from './database';

export function storeResources(db: Database, runId: string, record: ResourceRecord): void {
  db.prepare('INSERT OR REPLACE INTO resource_samples (run_id, body) VALUES (?, ?)').run(runId, JSON.stringify(record));
}

/** The record, or null when the run has none (ran before sampling, imported, or sampling was off). */
export function readResources(db: Database, runId: string): ResourceRecord | null {
  const row = db.prepare('SELECT body FROM resource_samples WHERE run_id = ?').get(runId) as { body: string } | undefined;
  if (!row) return null;
  let value: unknown;
  try {
    value = JSON.parse(row.body);
  } catch {
    throw storedDataError(runId, 'resource_samples', 'not JSON');
  }
  const parsed = ResourceRecordSchema.safeParse(value);
  if (!parsed.success) throw storedDataError(runId, 'resource_samples', 'not a resource record');
  return parsed.data;
}
