// A history.db that is not ours (someone else's tables, a schema from a newer app) is
// refused by name and left byte for byte as it was; an empty file and a history from before the
// application id are ours to initialise or adopt. Real SQLite files in temp data folders.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { openHistory } from '../../../electron/services/history';
import { APPLICATION_ID, LATEST_VERSION, schemaVersion } from '../../../electron/services/history/database';
import { migrations } from '../../../electron/services/history/migrations';
import { tmpDir } from './helpers';

/** A history.db in a fresh data folder, made by `build` with a plain SQLite connection. */
function dbWith(build: (db: InstanceType<typeof DatabaseSync>) => void): { dir: string; file: string } {
  const dir = tmpDir();
  const file = path.join(dir, 'history.db');
  const db = new DatabaseSync(file);
  build(db);
  db.close();
  return { dir, file };
}

/** Every file of the folder (but SQLite's shared-memory index) with a hash of its bytes: what "left untouched" means. */
const snapshot = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => !f.endsWith('-shm'))
      .sort()
      .map((f) => [
        f,
        crypto
          .createHash('sha256')
          .update(fs.readFileSync(path.join(dir, f)))
          .digest('hex'),
      ]),
  );

function openError(dir: string): { code?: string; message: string } {
  try {
    openHistory(dir).close();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('openHistory accepted the database');
}

const applicationId = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('PRAGMA application_id').get() as { application_id: number }).application_id;
  } finally {
    db.close();
  }
};

describe('a foreign history.db is refused untouched', () => {
  it.each<[string, (db: InstanceType<typeof DatabaseSync>) => void, RegExp]>([
    [
      "someone else's tables",
      (db) =>
        db.exec(
          "CREATE TABLE contacts (name TEXT, phone TEXT); CREATE TABLE notes (body TEXT); INSERT INTO contacts VALUES ('ada', '555')",
        ),
      /is not an Offload Studio history \(it holds tables contacts, notes\)/,
    ],
    [
      "someone else's runs table",
      (db) => db.exec('CREATE TABLE runs (id INTEGER PRIMARY KEY, lap_seconds REAL); INSERT INTO runs VALUES (1, 63.2)'),
      /is not an Offload Studio history \(it holds tables runs, not those of history schema version 0\)/,
    ],
    [
      'our tables under a version they do not match',
      (db) => {
        for (const m of migrations.filter((x) => x.version <= 2)) db.exec(m.sql);
        db.exec('PRAGMA user_version = 3');
      },
      /is not an Offload Studio history \(it holds tables run_details, runs, samples, snapshots, not those of history schema version 3\)/,
    ],
    [
      "another application's id",
      (db) => db.exec('PRAGMA application_id = 1234; CREATE TABLE t (x)'),
      /is not an Offload Studio history \(it belongs to another application: application_id 1234\)/,
    ],
    [
      'no tables but a schema version',
      (db) => db.exec('PRAGMA user_version = 2'),
      /is not an Offload Studio history \(it holds no tables but says schema version 2\)/,
    ],
  ])('%s: refused naming the file and what to do; no byte of it changes', (_what, build, reason) => {
    const { dir, file } = dbWith(build);
    const before = snapshot(dir);
    const error = openError(dir);
    expect(error.code).toBe('not_history');
    expect(error.message).toMatch(reason);
    expect(error.message.startsWith(`${file} is not an Offload Studio history`)).toBe(true);
    expect(error.message).toMatch(/left untouched: move it away, or choose another data folder \(--data-dir\)/);
    expect(snapshot(dir)).toEqual(before); // no app tables added, no WAL switch, no id stamped
    expect(openError(dir).code).toBe('not_history'); // and the same answer next time
  });

  it("someone else's WAL database, its last writes still in the -wal (the writer crashed): neither file changes", () => {
    const dir = tmpDir();
    const file = path.join(dir, 'history.db');
    // A process that writes in WAL mode and dies before any checkpoint.
    const script = `const { DatabaseSync } = require('@photostructure/sqlite');
      const db = new DatabaseSync(${JSON.stringify(file)});
      db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE ledger (amount REAL); INSERT INTO ledger VALUES (12.5)");
      process.kill(process.pid, 'SIGKILL');`;
    spawnSync(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../../..') });
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
    const before = snapshot(dir);
    expect(openError(dir)).toMatchObject({ code: 'not_history', message: expect.stringContaining('(it holds tables ledger)') });
    expect(snapshot(dir)).toEqual(before); // a read-write connection may checkpoint that WAL into history.db on close
  });

  // Issue 48: the read-only probe of a cleanly closed WAL-mode database created an empty -wal and
  // -shm beside it (the snapshot above ignores -shm, so the folder's listing is compared whole).
  it("someone else's WAL-mode database, closed cleanly: refused, and no -wal or -shm appears beside it", () => {
    const { dir } = dbWith((db) => db.exec('PRAGMA journal_mode = WAL; CREATE TABLE ledger (amount REAL); INSERT INTO ledger VALUES (1)'));
    expect(fs.readdirSync(dir)).toEqual(['history.db']);
    expect(openError(dir)).toMatchObject({ code: 'not_history', message: expect.stringContaining('(it holds tables ledger)') });
    expect(fs.readdirSync(dir)).toEqual(['history.db']);
  });

  it('a data folder that is a file (or under one) is refused in words, not EEXIST; the file is untouched', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'not-a-folder');
    fs.writeFileSync(file, 'mine');
    for (const [where, why] of [
      [file, 'a file is there'],
      [path.join(file, 'data'), 'a file is on its path'],
    ]) {
      expect(openError(where)).toMatchObject({
        code: 'bad_data_dir',
        message: `The data folder ${where} is not a folder (${why}); give a folder with --data-dir (it is created if missing). Nothing was written.`,
      });
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('mine');
  });

  it.each([
    ['with no tables (user_version 999 on an empty file)', (db: InstanceType<typeof DatabaseSync>) => db.exec('PRAGMA user_version = 999')],
    [
      'of a newer Offload Studio (our id, our tables, user_version 999)',
      (db: InstanceType<typeof DatabaseSync>) => {
        for (const m of migrations) db.exec(m.sql);
        db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = 999`);
      },
    ],
  ])('a schema version newer than this build knows, %s: refused naming the file and both versions', (_what, build) => {
    const { dir, file } = dbWith(build);
    const before = snapshot(dir);
    const error = openError(dir);
    expect(error.code).toBe('newer_schema');
    expect(error.message).toBe(
      `${file} was written by a newer Offload Studio (history schema version 999; this version knows up to ${LATEST_VERSION}). It was left untouched: update Offload Studio to open it, or choose another data folder (--data-dir).`,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('a new history, and an empty history.db, are ours: created with the application id', () => {
    const fresh = tmpDir();
    openHistory(fresh).close();
    expect(applicationId(path.join(fresh, 'history.db'))).toBe(APPLICATION_ID);
    const empty = tmpDir();
    fs.writeFileSync(path.join(empty, 'history.db'), '');
    const store = openHistory(empty);
    expect(store.listRuns()).toEqual({ runs: [], total: 0 });
    store.close();
    expect(applicationId(path.join(empty, 'history.db'))).toBe(APPLICATION_ID);
  });

  it.each(migrations.map((m) => m.version))(
    'a history from before the id, at schema version %d, is adopted: id set, migrated, its runs kept',
    (version) => {
      const { dir, file } = dbWith((db) => {
        for (const m of migrations.filter((x) => x.version <= version)) db.exec(m.sql);
        db.exec(`PRAGMA user_version = ${version}`);
        db.prepare(
          "INSERT INTO runs (id, created_at, status, model, strategy, engine) VALUES ('old', '2026-01-01T00:00:00Z', 'completed', 'm', 's', 'deepspeed')",
        ).run();
      });
      const store = openHistory(dir);
      expect(schemaVersion(store.db)).toBe(LATEST_VERSION);
      expect(store.listRuns().runs.map((r) => r.id)).toEqual(['old']);
      store.close();
      expect(applicationId(file)).toBe(APPLICATION_ID);
    },
  );
});
