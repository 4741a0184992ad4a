// Opening the SQLite file: WAL, foreign keys, a busy timeout, and migrations.
// Binding: @photostructure/sqlite (node:sqlite's API, N-API prebuilt), so one build loads in
// Node 20 (tests, serve, cli) and in Electron without a rebuild.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { migrations } from './migrations';

export type Database = InstanceType<typeof DatabaseSync>;

export class HistoryError extends Error {
  constructor(
    public readonly code: 'db_locked' | 'disk_full' | 'read_only' | 'corrupt' | 'io' | 'stored_data',
    message: string,
  ) {
    super(message);
    this.name = 'HistoryError';
  }
}

/**
 * A stored row holds a value the readers cannot use (a hand-edited database, or a row written
 * before imports were checked): said as a fault of the stored data, with the run and the way out.
 */
export function storedDataError(runId: unknown, column: string, why: string): HistoryError {
  const id = typeof runId === 'string' ? runId : '(unknown id)';
  return new HistoryError(
    'stored_data',
    `Stored data error in history.db: run ${id} has a bad '${column}' (${why}). The database itself is fine; that row was damaged or edited by hand. Delete the run on the Runs page (runs/delete) or correct that row.`,
  );
}

/** Translate SQLite's terse failures into what the user should do. */
export function explainSqliteError(error: unknown, file: string): HistoryError | unknown {
  if (error instanceof HistoryError) return error; // already says what to do
  const text = error instanceof Error ? error.message : String(error);
  if (/database is locked|SQLITE_BUSY/i.test(text))
    return new HistoryError('db_locked', `The history database ${file} is locked by another process. Close the other Offload Studio (or the tool holding it) and try again.`);
  if (/database or disk is full|SQLITE_FULL/i.test(text))
    return new HistoryError('disk_full', `The disk holding ${file} is full. Free space there; finished runs are kept.`);
  if (/readonly|read-only|SQLITE_READONLY/i.test(text))
    return new HistoryError('read_only', `The data folder ${path.dirname(file)} is read-only. Choose a writable data folder (--data-dir).`);
  if (/malformed|not a database|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(text))
    return new HistoryError('corrupt', `${file} is not a valid history database. Move it aside to start a new one.`);
  return error;
}

export function openDatabase(dataDir: string): Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'history.db');
  try {
    const db = new DatabaseSync(file);
    db.exec('PRAGMA busy_timeout = 3000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    throw explainSqliteError(error, file);
  }
}

export function schemaVersion(db: Database): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  return row.user_version;
}

export function migrate(db: Database): number {
  let current = schemaVersion(db);
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    inTransaction(db, () => {
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    });
    current = migration.version;
  }
  return current;
}

export function inTransaction<T>(db: Database, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // SQLite rolls a transaction back by itself on SQLITE_FULL / IOERR / NOMEM; a second ROLLBACK
    // then throws "no transaction is active" and would hide the real cause (a full disk).
    try {
      db.exec('ROLLBACK');
    } catch {
      // already rolled back
    }
    throw error;
  }
}
