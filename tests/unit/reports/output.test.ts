// Where a report may be written: validated paths, no silent overwrite, atomic writes.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import { openTempStore, seedRun, tempDir } from './fixtures';

let store: HistoryStore;
const out = tempDir();
let reports: ReturnType<typeof createReports>;

beforeAll(() => {
  store = openTempStore().store;
  seedRun(store, { id: 'r1', strategy: 'superoffload', stepSeconds: 20 });
  reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
});
afterAll(() => store?.close());

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string }) => e.code ?? String(e),
  );

describe('report paths', () => {
  it('refuses relative paths, NUL bytes, missing folders, files as folders and wrong extensions', async () => {
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: 'report.html' }))).toBe('bad_path');
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: path.join(out, 'a\0.html') }))).toBe('bad_path');
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: path.join(out, 'missing', 'a.html') }))).toBe('bad_path');
    fs.writeFileSync(path.join(out, 'plain'), 'x');
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: path.join(out, 'plain', 'a.html') }))).toBe('bad_path');
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: path.join(out, 'a.pdf') }))).toBe('bad_path');
    expect(await code(reports.export({ runIds: ['r1'], format: 'csv', path: path.join(out, 'a.html') }))).toBe('bad_path');
    expect(await code(reports.export({ runIds: ['r1'], format: 'bundle', path: path.join(out, 'a.json') }))).toBe('bad_path');
  });

  it('does not overwrite without being asked; with overwrite it replaces atomically', async () => {
    const target = path.join(out, 'r.html');
    fs.writeFileSync(target, 'precious');
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: target }))).toBe('exists');
    expect(fs.readFileSync(target, 'utf8')).toBe('precious');
    const res = await reports.export({ runIds: ['r1'], format: 'html', path: target, overwrite: true });
    expect(fs.readFileSync(target, 'utf8')).toMatch(/^<!doctype html>/);
    expect(res.bytes).toBe(fs.statSync(target).size);
    expect(fs.readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]); // no temp file left
  });

  it('a file never replaces a folder, even with overwrite', async () => {
    fs.mkdirSync(path.join(out, 'dir.html'));
    expect(await code(reports.export({ runIds: ['r1'], format: 'html', path: path.join(out, 'dir.html'), overwrite: true }))).toBe(
      'bad_path',
    );
    expect(fs.statSync(path.join(out, 'dir.html')).isDirectory()).toBe(true);
  });
});
