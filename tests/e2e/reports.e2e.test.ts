// Reports end to end: a runs JSON (synthetic runs built through the history store's own
// lifecycle, then exported) imported through the real CLI into a fresh data folder, a real
// `serve` on it, and Chromium on the Reports page picking runs, a format and a path. The files
// are written by serve's backend; the test reads them back from disk.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { writeRunsFile } from '../../electron/services/history';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { openTempStore, seedComparison, tempDir } from '../unit/reports/fixtures';

const HEADLINE = /SuperOffload was \d\.\d+× faster than ZeRO-Offload \([^)]*\) — for llama-3\.3-70b on 4× GH200/;
let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
const outDir = tempDir('offload-reports-e2e-out-');

function cli(args: string[]) {
  const result = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'tsx'), ['electron/cli/main.ts', ...args], { cwd: repoRoot, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const { store } = openTempStore();
  seedComparison(store);
  const fixture = path.join(tempDir(), 'seed.runs.json');
  writeRunsFile(fixture, store.exportRuns());
  store.close();
  const dataDir = tempDir('offload-reports-e2e-data-');
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 6 run(s), skipped 0');
  serve = await startServe([], dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** Chromium browser processes (not their helpers) anywhere under `root`'s process tree. */
function chromiumBrowsersUnder(root: number): number[] {
  const procs = new Map<number, { ppid: number; chrome: boolean }>();
  for (const e of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] === 'Z') continue;
      procs.set(Number(e), { ppid: Number(rest[1]), chrome: /chrom/i.test(fs.readFileSync(`/proc/${e}/cmdline`, 'latin1')) });
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid: number): boolean => {
    for (let p = procs.get(pid)?.ppid; p !== undefined && p > 1; p = procs.get(p)?.ppid) if (p === root) return true;
    return false;
  };
  return [...procs].filter(([pid, p]) => p.chrome && !procs.get(p.ppid)?.chrome && under(pid)).map(([pid]) => pid);
}

async function openReports(): Promise<{ page: Page; consoleErrors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const consoleErrors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  await page.goto(serve.url + '#/reports');
  await page.waitForSelector('[data-app-state="loaded"]');
  await page.waitForSelector('[data-testid="reports-runs"] tbody tr');
  return { page, consoleErrors };
}

async function exportAs(page: Page, format: 'html' | 'pdf', file: string) {
  await page.check(`input[name="report-format"][value="${format}"]`);
  await page.fill('[data-testid="report-path"]', file);
  await page.click('[data-testid="report-export"]');
  await page.waitForSelector('[data-testid="report-result"], [data-testid="report-error"]', { timeout: 90_000 });
  const error = await page.$('[data-testid="report-error"]');
  if (error) throw new Error(`export failed: ${await error.textContent()}`);
}

describe('Reports page', () => {
  it('picks runs, exports an HTML report to the chosen path, and offers to overwrite it', async () => {
    const { page, consoleErrors } = await openReports();
    expect(await page.locator('[data-testid="reports-runs"] tbody tr').count()).toBe(6);
    // Under serve the page says where the file goes (the server machine).
    expect(await page.textContent('[data-testid="report-path-note"]')).toContain('server machine');
    // Baseline first (the first selected run), then the runs it is compared with.
    for (const id of ['zo-0', 'zo-1', 'zo-2', 'so-0', 'so-1', 'so-2']) await page.check(`input[aria-label="select run ${id}"]`);
    expect(await page.textContent('[data-testid="reports-page"] .card')).toContain('6 selected');
    // The first one ticked is marked as the baseline.
    expect(await page.locator('tr:has([data-testid="report-baseline"]) input').getAttribute('aria-label')).toBe('select run zo-0');

    const file = path.join(outDir, 'team-report.html');
    await exportAs(page, 'html', file);
    expect(await page.textContent('[data-testid="report-result"]')).toContain(file);
    const written = fs.readFileSync(file, 'utf8');
    expect(written.match(/data-testid="headline">([^<]*)</)?.[1]).toMatch(HEADLINE);
    // One baseline: the first selected run's repeat group, its median of repeats (the summary's and the run table's).
    expect(written).toContain('baseline: <span data-testid="baseline">ZeRO-Offload, median of 3 repeats</span>');
    await page.screenshot({ path: path.join(artifacts, 'reports-1280x800.png') });

    // Same path again: the backend refuses ('exists'), the page offers Overwrite, which works.
    const before = fs.statSync(file).mtimeMs;
    await page.click('[data-testid="report-export"]');
    await page.waitForSelector('[data-testid="report-error"]');
    expect(await page.textContent('[data-testid="report-error"]')).toContain('already exists');
    await page.click('[data-testid="report-error"] >> text=Overwrite');
    await page.waitForSelector('[data-testid="report-result"]');
    expect(fs.statSync(file).mtimeMs).toBeGreaterThan(before);

    // Under serve the browser can take the file itself (through the token-guarded connection):
    // a JSON and a bundle download land in the browser's downloads, nothing new on the server.
    const serverFiles = fs.readdirSync(outDir).sort();
    for (const [format, ext] of [['json', '.json'], ['bundle', '.zip']] as const) {
      await page.check(`input[name="report-format"][value="${format}"]`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="report-download"]')]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^offload-studio-report-\\d{8}-\\d{4}\\${ext}$`));
      const bytes = fs.readFileSync((await download.path())!);
      if (format === 'json') expect((JSON.parse(bytes.toString('utf8')) as { runs: unknown[] }).runs).toHaveLength(6);
      else expect(bytes.subarray(0, 2).toString()).toBe('PK');
      await page.waitForSelector('[data-testid="report-downloaded"]');
    }
    expect(fs.readdirSync(outDir).sort()).toEqual(serverFiles);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('exports a PDF twice through serve, the second on the Chromium the first started', async () => {
    const { page } = await openReports();
    // Select all takes the table's order (newest first), so the baseline is so-2, a SuperOffload run.
    await page.click('text=Select all');
    const times: number[] = [];
    const browsers: number[][] = [];
    for (const name of ['first.pdf', 'second.pdf']) {
      const file = path.join(outDir, name);
      const started = performance.now();
      await exportAs(page, 'pdf', file);
      times.push(performance.now() - started);
      expect(await page.textContent('[data-testid="report-result"]')).toContain(file);
      expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
      const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' });
      browsers.push(chromiumBrowsersUnder(serve.process.pid!));
      if (!text.error) {
        const pdfText = text.stdout.replace(/\s+/g, ' ');
        // One headline (history's comparison), and the summary's baseline is the report's (so-2), not ZeRO-Offload.
        expect(pdfText).toMatch(HEADLINE);
        expect(pdfText).toContain('baseline: SuperOffload');
        expect(pdfText).toContain('SuperOffload (baseline)');
        expect(pdfText).not.toContain('ZeRO-Offload (baseline)');
      }
    }
    // One browser, kept between the exports (not one per export, not closed after the first).
    expect(browsers[0]).toHaveLength(1);
    expect(browsers[1]).toEqual(browsers[0]);
    // Not a strict timing test (a shared 2-core VM): logged for the report.
    console.log(`PDF export through serve + UI: first ${times[0].toFixed(0)} ms (Chromium launch), second ${times[1].toFixed(0)} ms`);
    await page.close();
    // Stopping serve closes the backend, which closes that browser.
    const [pid] = browsers[0];
    await serve.stop();
    await expect.poll(() => fs.existsSync(`/proc/${pid}`) && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z'), { timeout: 10_000 }).toBe(false);
  });
});
