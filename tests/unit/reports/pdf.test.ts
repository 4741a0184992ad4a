// The PDF through real headless Chromium, checked with poppler: page size (A4 / Letter), more
// than one page (sections break), and PNG renders of the pages kept in test-results/reports.
// Also the kept-alive browser's lifecycle: one Chromium across exports, closed when idle and on
// close(), and a CLI `export --format pdf` that exits promptly leaving no Chromium behind.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChromiumPdfRenderer, createReports, type ReportsService } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import { createBackend } from '../../../electron/services/backend';
import { openTempStore, seedComparison, tempDir } from './fixtures';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const artifacts = path.join(repoRoot, 'test-results', 'reports');
let store: HistoryStore;
let storeDir: string;
let ids: string[];
const opened: ReportsService[] = [];
const out = tempDir();
const hasTools = fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') && spawnSync('pdfinfo', ['-v']).error === undefined;

beforeAll(() => {
  fs.mkdirSync(artifacts, { recursive: true });
  ({ store, dir: storeDir } = openTempStore());
  ids = seedComparison(store);
});
afterAll(async () => {
  for (const r of opened) await r.close();
  store?.close();
});

/** Pids of live processes whose command line is Chromium and whose parent is `parent`. */
function chromiumChildren(parent = process.pid): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (ppid === parent && state !== 'Z' && /chrom/i.test(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8'))) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Pids of live processes whose environment holds `marker` (children inherit it, orphans too). */
function processesWithMarker(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return fs.readFileSync(`/proc/${e}/environ`, 'latin1').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function pdfInfo(file: string): { pages: number; size: string } {
  const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
  expect(info.status, info.stderr).toBe(0);
  return { pages: Number(info.stdout.match(/Pages:\s+(\d+)/)![1]), size: info.stdout.match(/Page size:\s+([^\n]+)/)![1] };
}

describe.skipIf(!hasTools)('PDF report (Chromium + poppler)', () => {
  it.each([
    ['A4', /^59[45]\.\d* x 841\.\d* pts/],
    ['Letter', /^612(\.0+)? x 792(\.0+)? pts/],
  ] as const)('prints %s pages: sections flow on, the configs once in an appendix page', async (pageSize, sizePattern) => {
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
    opened.push(reports);
    const file = path.join(out, `report-${pageSize}.pdf`);
    const res = await reports.export({ runIds: ids, format: 'pdf', path: file, pageSize });
    expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
    expect(res.bytes).toBe(fs.statSync(file).size);
    const { pages, size } = pdfInfo(file);
    expect(size).toMatch(sizePattern);
    // Summary and charts, runs, system and formula flow on; the appendix (each distinct config once) starts a page.
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(pages).toBeLessThanOrEqual(5); // 6 runs: A4 4, Letter 5 (6+ when every section started a page and configs and formulas were per run)
    const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Offload Studio benchmark report');
    expect(text).toMatch(/SuperOffload was \d\.\d+× faster than ZeRO-Offload \([^)]*\) — for llama-3\.3-70b on 4× GH200/);
    expect(text).toContain('c = 4 counts recomputation');
    // Nothing runs past the right margin (the wide runs table was once cut off there): every
    // word poppler finds ends inside the 12 mm margin, and the table's last column is printed.
    const pageWidth = Number(size.match(/^([\d.]+)/)![1]);
    const rightEdge = pageWidth - (12 / 25.4) * 72;
    const words = [
      ...spawnSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' }).stdout.matchAll(
        /<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>([^<]*)</g,
      ),
    ];
    expect(words.length).toBeGreaterThan(500);
    const past = words.filter((w) => Number(w[2]) > rightEdge + 1).map((w) => `${w[3]} @ ${w[2]}`);
    expect(past).toEqual([]);
    // The runs table's last column (Δ against the baseline) is printed for every run.
    const runsPart = text.slice(text.indexOf('Runs Figures are'), text.indexOf('System '));
    expect(runsPart).toMatch(/Δ TFLOPS\/GPU VS/i);
    expect(runsPart.match(/[+−±]\d+\.\d %/g)!.length).toBeGreaterThanOrEqual(6);
    // The appendix has each distinct config once (two strategies × three repeats: two configs).
    const appendix = text.slice(text.indexOf('Appendix: configurations'));
    expect(appendix).toContain('2 distinct configuration(s) for 6 run(s)');
    expect(appendix.match(/ds_config\.json/g)).toHaveLength(2);
    expect(text.indexOf('Appendix: configurations')).toBeGreaterThan(text.indexOf('How the figures are computed'));
    const prefix = path.join(artifacts, `report-${pageSize}`);
    // Renders of an earlier, longer report would count as pages of this one.
    for (const f of fs.readdirSync(artifacts).filter((x) => x.startsWith(`report-${pageSize}-`) && x.endsWith('.png')))
      fs.rmSync(path.join(artifacts, f));
    const png = spawnSync('pdftoppm', ['-png', '-r', '60', file, prefix]);
    expect(png.status).toBe(0);
    expect(fs.readdirSync(artifacts).filter((f) => f.startsWith(`report-${pageSize}`) && f.endsWith('.png')).length).toBe(pages);
  });

  it('names the failure when Chromium is missing', async () => {
    const reports = createReports({
      getRun: (id) => store.getRun(id, 0),
      compare: (i, b) => store.compare(i, b),
      pdfRenderer: createChromiumPdfRenderer('/nonexistent/chromium'),
    });
    await expect(reports.export({ runIds: ids, format: 'pdf', path: path.join(out, 'none.pdf') })).rejects.toMatchObject({
      code: 'pdf_failed',
    });
    expect(fs.existsSync(path.join(out, 'none.pdf'))).toBe(false);
  });

  it('keeps one Chromium for several exports, and closes it when idle', async () => {
    // Other tests' browsers (closed in afterAll) are not this renderer's.
    const before = new Set(chromiumChildren());
    const ours = () => chromiumChildren().filter((pid) => !before.has(pid));
    const render = createChromiumPdfRenderer(undefined, { idleMs: 1500 });
    try {
      const html = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b), pdfRenderer: render }).html(
        ids.slice(0, 2),
        { pageSize: 'A4' },
      );
      expect(ours()).toEqual([]);
      const [a, b] = await Promise.all([render(html, { pageSize: 'A4' }), render(html, { pageSize: 'A4' })]);
      const first = ours();
      expect(first).toHaveLength(1); // two concurrent exports, one launch
      const c = await render(html, { pageSize: 'A4' });
      expect(ours()).toEqual(first); // the same browser process served the third
      for (const pdf of [a, b, c]) expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      // Idle: the browser goes away by itself (so a long-running serve does not hold it forever).
      await expect.poll(() => ours(), { timeout: 10_000, interval: 200 }).toEqual([]);
      // …and the next export starts a new one.
      await render(html, { pageSize: 'Letter' });
      expect(ours()).toHaveLength(1);
    } finally {
      await render.close();
    }
    expect(ours()).toEqual([]);
  });

  it('backend close stops the Chromium that a reports/export started', async () => {
    const before = new Set(chromiumChildren());
    const ours = () => chromiumChildren().filter((pid) => !before.has(pid));
    const backend = createBackend({ dataDir: storeDir, transport: 'cli' });
    try {
      const res = await backend.invoke('reports/export', { runIds: ids.slice(0, 2), format: 'pdf', path: path.join(out, 'backend.pdf') });
      expect(res.bytes).toBeGreaterThan(1000);
      expect(ours()).toHaveLength(1); // still alive: the next export would reuse it
    } finally {
      await backend.close();
    }
    // Gone at once (ctx.onClose), not after the 60 s idle timeout.
    expect(ours()).toEqual([]);
  });

  // Playwright also kills its browsers when the process exits; this checks the outcome a user
  // sees (prompt exit, nothing left running) whichever of the two does it.
  it('CLI export --format pdf exits promptly and leaves no Chromium behind', async () => {
    const marker = `OFFLOAD_PDF_TEST_${crypto.randomBytes(6).toString('hex')}`;
    const file = path.join(out, 'cli.pdf');
    const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
    const started = performance.now();
    const child = spawn(
      tsx,
      ['electron/cli/main.ts', 'export', '--data-dir', storeDir, '--runs', ids.join(','), '--format', 'pdf', '--out', file],
      {
        cwd: repoRoot,
        env: { ...process.env, [marker]: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const seconds = (performance.now() - started) / 1000;
    expect(code, output).toBe(0);
    expect(output).toMatch(/wrote .*cli\.pdf/);
    // Far below the 60 s idle timeout: the CLI closed the browser instead of waiting for it.
    expect(seconds).toBeLessThan(40);
    expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
    await expect.poll(() => processesWithMarker(marker), { timeout: 5000, interval: 200 }).toEqual([]);
  });
});
