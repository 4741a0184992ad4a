import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHistory } from '../../../electron/services/history';
import { migrations } from '../../../electron/services/history/migrations';
import { schemaVersion } from '../../../electron/services/history/database';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-hist-'));

describe('history store basics', () => {
  it('creates the database in the data folder, in WAL mode, at the latest schema', () => {
    const dir = tmp();
    const store = openHistory(dir);
    expect(fs.existsSync(path.join(dir, 'history.db'))).toBe(true);
    expect((store.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    expect(schemaVersion(store.db)).toBe(migrations[migrations.length - 1].version);
    expect(store.listRuns()).toEqual({ runs: [], total: 0 });
    store.close();
  });

  it('reopening applies no migration twice', () => {
    const dir = tmp();
    openHistory(dir).close();
    const again = openHistory(dir);
    expect(schemaVersion(again.db)).toBe(migrations[migrations.length - 1].version);
    again.close();
  });

  it('refuses a file that is not a database with a clear error', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'history.db'), 'this is not sqlite '.repeat(100));
    expect(() => openHistory(dir)).toThrow(/not a valid history database/);
  });
});
