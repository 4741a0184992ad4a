// The PDF through real headless Chromium, checked with poppler: page size (A4 / Letter), more
// than one page (sections break), and PNG renders of the pages kept in test-results/reports.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import { openTempStore, seedComparison, tempDir } from './fixtures';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const artifacts = path.join(repoRoot, 'test-results', 'reports');
let store: HistoryStore;
let ids: string[];
const out = tempDir();
const hasTools = fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') && spawnSync('pdfinfo', ['-v']).error === undefined;

beforeAll(() => {
  fs.mkdirSync(artifacts, { recursive: true });
  store = openTempStore().store;
  ids = seedComparison(store);
});
afterAll(() => store?.close());

function pdfInfo(file: string): { pages: number; size: string } {
  const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
  expect(info.status, info.stderr).toBe(0);
  return { pages: Number(info.stdout.match(/Pages:\s+(\d+)/)![1]), size: info.stdout.match(/Page size:\s+([^\n]+)/)![1] };
}

describe.skipIf(!hasTools)('PDF report (Chromium + poppler)', () => {
  it.each([
    ['A4', /^59[45]\.\d* x 841\.\d* pts/],
    ['Letter', /^612(\.0+)? x 792(\.0+)? pts/],
  ] as const)('prints %s pages with sections on their own pages', async (pageSize, sizePattern) => {
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
    const file = path.join(out, `report-${pageSize}.pdf`);
    const res = await reports.export({ runIds: ids, format: 'pdf', path: file, pageSize });
    expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
    expect(res.bytes).toBe(fs.statSync(file).size);
    const { pages, size } = pdfInfo(file);
    expect(size).toMatch(sizePattern);
    expect(pages).toBeGreaterThanOrEqual(5); // summary, charts, runs, formula, system, configs: page breaks between sections
    const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Offload Studio benchmark report');
    expect(text).toMatch(/SuperOffload was \d\.\d+× faster than ZeRO-Offload for llama-3\.3-70b on 4× GH200/);
    expect(text).toContain('c = 4 counts recomputation');
    const prefix = path.join(artifacts, `report-${pageSize}`);
    const png = spawnSync('pdftoppm', ['-png', '-r', '60', file, prefix]);
    expect(png.status).toBe(0);
    expect(fs.readdirSync(artifacts).filter((f) => f.startsWith(`report-${pageSize}`) && f.endsWith('.png')).length).toBe(pages);
  });

  it('names the failure when Chromium is missing', async () => {
    const { createChromiumPdfRenderer } = await import('../../../electron/services/reports');
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), pdfRenderer: createChromiumPdfRenderer('/nonexistent/chromium') });
    await expect(reports.export({ runIds: ids, format: 'pdf', path: path.join(out, 'none.pdf') })).rejects.toMatchObject({ code: 'pdf_failed' });
    expect(fs.existsSync(path.join(out, 'none.pdf'))).toBe(false);
  });
});
