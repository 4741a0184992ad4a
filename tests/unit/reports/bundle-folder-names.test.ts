// The reproduction bundle names each run's folder after the whole run id: the runs of one sweep
// share their id's first 12 characters ("r-20261203-1"), so a folder name cut there left nine
// folders that all ended alike and said nothing about which run each held.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReports } from '../../../electron/services/reports';
import { openTempStore, seedRun, tempDir } from './fixtures';

const { store } = openTempStore();
afterAll(() => store.close());

describe('bundle folder names', () => {
  it('carry the whole run id, so the nine runs of one sweep are told apart by name', async () => {
    const ids = Array.from({ length: 9 }, (_, i) => `r-20261203-141502-a1b2c3-${i + 1}`);
    for (const [i, id] of ids.entries())
      seedRun(store, { id, strategy: i % 2 ? 'superoffload' : 'zero2-offload', stepSeconds: 20 + i, repeatIndex: Math.floor(i / 2) });
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b), appVersion: '1.2.3' });
    const dir = path.join(tempDir(), 'bundle');
    await reports.export({ runIds: ids, format: 'bundle', path: dir });
    const folders = fs
      .readdirSync(dir)
      .filter((f) => fs.statSync(path.join(dir, f)).isDirectory())
      .sort();
    expect(folders).toHaveLength(9);
    for (const id of ids)
      expect(
        folders.filter((f) => f.endsWith(`-${id}`)),
        id,
      ).toHaveLength(1);
    // Without the index prefix (01-, 02-…) the names still differ: the id's end is kept.
    expect(new Set(folders.map((f) => f.replace(/^\d+-/, ''))).size).toBe(9);
  });
});
