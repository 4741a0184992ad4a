// Opening the SQLite file: WAL, foreign keys, a busy timeout, and migrations.
// Binding: @photostructure/sqlite (node:sqlite's API, N-API prebuilt), so one build loads in
// Node 20 (tests, serve, cli) and in Electron without a rebuild.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from '@photostructure/sqlite';
import { ApiError } from '../../contract';
import { migrations } from './migrations';

export type Database = InstanceType<typeof DatabaseSync>;

export class HistoryError extends Error {
  constructor(
    public readonly code: 'db_locked' | 'disk_full' | 'read_only' | 'corrupt' | 'io' | 'stored_data' | 'not_history' | 'newer_schema',
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
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- documents that a recognised failure becomes a HistoryError
export function explainSqliteError(error: unknown, file: string): HistoryError | unknown {
  if (error instanceof HistoryError) return error; // already says what to do
  const text = error instanceof Error ? error.message : String(error);
  if (/database is locked|SQLITE_BUSY/i.test(text))
    return new HistoryError(
      'db_locked',
      `The history database ${file} is locked by another process. Close the other Offload Studio (or the tool holding it) and try again.`,
    );
  if (/database or disk is full|SQLITE_FULL/i.test(text))
    return new HistoryError('disk_full', `The disk holding ${file} is full. Free space there; finished runs are kept.`);
  if (/readonly|read-only|SQLITE_READONLY/i.test(text))
    return new HistoryError('read_only', `The data folder ${path.dirname(file)} is read-only. Choose a writable data folder (--data-dir).`);
  if (/malformed|not a database|SQLITE_CORRUPT|SQLITE_NOTADB/i.test(text))
    return new HistoryError('corrupt', `${file} is not a valid history database. Move it aside to start a new one.`);
  // The binding refuses to read an INTEGER beyond 2^53 (imports and specs are bounded now; a hand
  // edit can still store one). Said as the stored-data fault it is, not as a JavaScript RangeError.
  const tooLarge = /Value is too large to be represented as a JavaScript number: (-?\d+)/.exec(text);
  if (tooLarge)
    return new HistoryError(
      'stored_data',
      `Stored data error in ${path.basename(file)}: a row holds the whole number ${tooLarge[1]}, too large to read exactly. The database itself is fine; that row was edited by hand or stored by an older version. Delete the run that holds it (runs/delete) or correct that row.`,
    );
  return error;
}

/** PRAGMA application_id of every history.db this app writes ('OSst'): how a database is told
 *  to be ours, so a file someone else left at the path is never migrated into. */
export const APPLICATION_ID = 0x4f535374;

/** The newest schema version this build knows (its last migration). */
export const LATEST_VERSION = migrations[migrations.length - 1].version;

/** Table name → its column names (SQLite's own sqlite_* tables left out). */
type Shape = Map<string, string>;

function shapeOf(db: Database): Shape {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .all() as unknown as { name: string }[];
  return new Map(
    tables.map(({ name }) => [
      name,
      (db.prepare(`PRAGMA table_info("${name.replace(/"/g, '""')}")`).all() as unknown as { name: string }[]).map((c) => c.name).join(','),
    ]),
  );
}

const shapes = new Map<number, Shape>();
/** The tables (and their columns) a history at schema `version` has: its migrations, replayed in memory. */
function shapeAt(version: number): Shape {
  let shape = shapes.get(version);
  if (!shape) {
    const scratch = new DatabaseSync(':memory:');
    try {
      for (const m of migrations) if (m.version <= version) scratch.exec(m.sql);
      shape = shapeOf(scratch);
    } finally {
      scratch.close();
    }
    shapes.set(version, shape);
  }
  return shape;
}

const sameShape = (a: Shape, b: Shape) => a.size === b.size && [...a].every(([name, cols]) => b.get(name) === cols);

/**
 * Whether the database at `file` is ours to write, decided by reads alone (before any pragma or
 * migration writes to it; see probe). Ours: it carries APPLICATION_ID. Adopted: it carries no id but holds
 * exactly the tables of a schema version this build knows (an empty file is version 0, no tables;
 * a history from before the id existed is another version). Anything else is refused, untouched.
 * Returns whether the id still has to be set.
 */
function checkOwnership(db: Database, file: string): { adopt: boolean } {
  const id = (db.prepare('PRAGMA application_id').get() as { application_id: number }).application_id;
  const version = schemaVersion(db);
  const notOurs = (what: string) =>
    new HistoryError(
      'not_history',
      `${file} is not an Offload Studio history (${what}). It was left untouched: move it away, or choose another data folder (--data-dir).`,
    );
  if (id !== 0 && id !== APPLICATION_ID) throw notOurs(`it belongs to another application: application_id ${id}`);
  const shape = id === 0 ? shapeOf(db) : null;
  const tables = shape ? [...shape.keys()].join(', ') : '';
  if (shape?.size && !shape.has('runs')) throw notOurs(`it holds tables ${tables}`);
  if (version > LATEST_VERSION)
    throw new HistoryError(
      'newer_schema',
      `${file} was written by a newer Offload Studio (history schema version ${version}; this version knows up to ${LATEST_VERSION}). It was left untouched: update Offload Studio to open it, or choose another data folder (--data-dir).`,
    );
  if (!shape) return { adopt: false };
  if (version < 0 || !sameShape(shape, shapeAt(version)))
    throw notOurs(
      shape.size
        ? `it holds tables ${tables}, not those of history schema version ${version}`
        : `it holds no tables but says schema version ${version}`,
    );
  return { adopt: true };
}

/** checkOwnership on a read-only connection: a refused database is never written, not even by
 *  the checkpoint a read-write connection makes on close (a WAL it holds stays its own). */
function probe(file: string): { adopt: boolean } {
  const empty = (f: string) => !fs.existsSync(f) || fs.statSync(f).size === 0;
  if (empty(file) && empty(`${file}-wal`)) return { adopt: true }; // new or empty: ours to initialise
  // Without a -wal beside it there is nothing but the file to read: opened immutable, SQLite creates
  // no -wal/-shm (a plain read-only open of a WAL-mode foreign database left both behind).
  const db = fs.existsSync(`${file}-wal`)
    ? new DatabaseSync(file, { readOnly: true })
    : new DatabaseSync(`${pathToFileURL(file).href}?immutable=1`, { readOnly: true });
  try {
    db.exec('PRAGMA busy_timeout = 3000');
    return checkOwnership(db, file);
  } finally {
    db.close();
  }
}

/** Creates the data folder; a path that is (or runs through) a file is refused in words, not EEXIST. */
function makeDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new ApiError(
        'bad_data_dir',
        `The data folder ${dataDir} is not a folder (${code === 'EEXIST' ? 'a file is there' : 'a file is on its path'}); give a folder with --data-dir (it is created if missing). Nothing was written.`,
        'dataDir',
      );
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new ApiError(
        'bad_data_dir',
        `The data folder ${dataDir} cannot be created (${code}); give a folder you can write with --data-dir.`,
        'dataDir',
      );
    throw error;
  }
}

export function openDatabase(dataDir: string): Database {
  makeDataDir(dataDir);
  const file = path.join(dataDir, 'history.db');
  let db: Database | null = null;
  try {
    const { adopt } = probe(file);
    db = new DatabaseSync(file);
    db.exec('PRAGMA busy_timeout = 3000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    if (adopt) db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    migrate(db);
    return db;
  } catch (error) {
    if (db?.isOpen) db.close(); // a refused (or failed) open keeps no handle on the file
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
