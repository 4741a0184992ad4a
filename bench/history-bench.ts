// `npm run bench:history`: the history at scale, on SYNTHETIC data (bench/history-synthetic.ts):
// 10,000 runs and 1,000,000 samples. Measures the store's filter queries, the Runs table's
// filter in a real Chromium page (input → rows updated), the Compare page's charts (data arrival
// → every echarts 'finished'), and the database size.
//   npx tsx bench/history-bench.ts [--data-dir D (reuse a generated one)]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHistory } from '../electron/services/history';
import { launchChromium } from '../tests/helpers/browser';
import { repoRoot, startServe } from '../tests/helpers/serve';
import { median, reportFigure } from './figure';
import { databaseBytes, generate } from './history-synthetic';

const argv = process.argv.slice(2);
const given = argv.includes('--data-dir') ? argv[argv.indexOf('--data-dir') + 1] : undefined;
const dataDir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
if (!given || !fs.existsSync(path.join(dataDir, 'history.db'))) {
  const g = generate(dataDir);
  console.log(`generated ${g.runs} synthetic runs and ${g.samples} samples in ${(g.ms / 1000).toFixed(1)} s (${dataDir})`);
}
const mb = databaseBytes(dataDir) / 1e6;
reportFigure({
  id: 'history-db-mb',
  label: 'history database, 10,000 runs + 1,000,000 samples',
  value: mb,
  unit: 'MB',
  goal: '< 200 MB',
  ok: mb < 200,
  note: 'synthetic data',
});

// ---- the store's filter queries (what `runs/list` and the CLI run) ----
const store = openHistory(dataDir);
const filters = [
  { strategy: 'superoffload', limit: 100000 },
  { model: 'qwen3-14b', status: 'completed' as const, limit: 100000 },
  { tag: 'sweep-00042', limit: 100000 },
  { machineId: 'synthetic-machine-3', since: '2026-01-02', until: '2026-01-05', limit: 100000 },
  { limit: 100000 },
];
const sqlTimes = filters.map((f) => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    store.listRuns(f);
    times.push(performance.now() - t0);
  }
  return median(times);
});
reportFigure({
  id: 'history-filter-sql-ms',
  label: 'store filter query, worst of 5 filters (median of 5 each; all 10,000 rows for no filter)',
  value: Math.max(...sqlTimes),
  unit: 'ms',
  goal: '< 100 ms',
  ok: Math.max(...sqlTimes) < 100,
  note: sqlTimes.map((t) => t.toFixed(1)).join(' / '),
});
const sweepIds = store.listRuns({ tag: 'sweep-00042' }).runs.map((r) => r.id);
const tc = performance.now();
store.compare(sweepIds);
reportFigure({
  id: 'history-compare-query-ms',
  label: `compare/runs on ${sweepIds.length} runs (stats, series of 90 steps each, diffs)`,
  value: performance.now() - tc,
  unit: 'ms',
  goal: 'n/a',
  ok: null,
});
store.close();

// ---- the real pages in Chromium ----
if (!fs.existsSync(path.join(repoRoot, 'dist', 'renderer', 'index.html')))
  spawnSync('node', ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
const serve = await startServe([], dataDir);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const t0 = performance.now();
  await page.goto(serve.url + '#/runs');
  await page.waitForSelector('[data-testid="run-row"]', { timeout: 60_000 });
  reportFigure({
    id: 'history-runs-page-load-ms',
    label: 'Runs page: navigation → first rows of 10,000 (all summaries over the WebSocket)',
    value: performance.now() - t0,
    unit: 'ms',
    goal: 'n/a',
    ok: null,
  });
  const domRows = await page.locator('[data-testid="run-row"]').count();
  console.log(`rows in the DOM for 10,000 runs: ${domRows} (windowed)`);

  // Input → the count line shows the new result, timed inside the page (no driver round trip).
  const filterOnce = (kind: 'text' | 'select', selector: string, value: string) =>
    page.evaluate(
      ({ kind, selector, value }) =>
        new Promise<number>((resolve) => {
          const el = document.querySelector(selector) as HTMLInputElement | HTMLSelectElement;
          const count = document.querySelector('[data-testid="runs-count"]')!;
          const before = count.textContent;
          const t = performance.now();
          const observer = new MutationObserver(() => {
            if (count.textContent !== before) {
              observer.disconnect();
              // The frame after the commit: the rows are painted.
              requestAnimationFrame(() => resolve(performance.now() - t));
            }
          });
          observer.observe(count, { childList: true, subtree: true, characterData: true });
          const proto = kind === 'text' ? HTMLInputElement.prototype : HTMLSelectElement.prototype;
          Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
          el.dispatchEvent(new Event(kind === 'text' ? 'input' : 'change', { bubbles: true }));
        }),
      { kind, selector, value },
    );
  const filterTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    filterTimes.push(await filterOnce('text', '[data-testid="runs-search"]', 'superoffload'));
    filterTimes.push(await filterOnce('text', '[data-testid="runs-search"]', ''));
    filterTimes.push(await filterOnce('select', 'select[aria-label="Strategy"]', 'zero3-offload'));
    filterTimes.push(await filterOnce('select', 'select[aria-label="Strategy"]', ''));
    filterTimes.push(await filterOnce('text', '[data-testid="runs-search"]', `sweep-000${42 + i}`));
    filterTimes.push(await filterOnce('text', '[data-testid="runs-search"]', ''));
  }
  reportFigure({
    id: 'history-runs-filter-ms',
    label: 'Runs table filter in Chromium, 10,000 runs: input → rows painted (max of 18)',
    value: Math.max(...filterTimes),
    unit: 'ms',
    goal: '< 100 ms',
    ok: Math.max(...filterTimes) < 100,
    note: `median ${median(filterTimes).toFixed(1)} ms`,
  });

  // Compare one sweep (4 strategies × 2 repeats, 100 steps each): data arrival → all charts finished.
  await page.fill('[data-testid="runs-search"]', 'sweep-00042');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length === 8);
  await page.check('input[aria-label="Select all shown"]');
  await page.click('[data-testid="compare-selected"]');
  const renderTimes: number[] = [];
  await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 60_000 });
  renderTimes.push(Number(await page.getAttribute('[data-testid="compare-page"]', 'data-render-ms')));
  const baselines = await page.$$eval('[data-testid="baseline-select"] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
  for (let i = 0; i < 6; i++) {
    await page.selectOption('[data-testid="baseline-select"]', baselines[(i + 1) % baselines.length]);
    await page.waitForSelector('[data-testid="compare-page"]:not([data-render-ms])', { timeout: 10_000 }).catch(() => undefined);
    await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 60_000 });
    renderTimes.push(Number(await page.getAttribute('[data-testid="compare-page"]', 'data-render-ms')));
  }
  reportFigure({
    id: 'history-compare-render-ms',
    label: 'Compare charts in Chromium (8 runs, 5 charts): data arrival → every echarts finished (median of 7)',
    value: median(renderTimes),
    unit: 'ms',
    goal: '< 200 ms',
    ok: median(renderTimes) < 200,
    note: `max ${Math.max(...renderTimes).toFixed(1)} ms`,
  });
  await page.screenshot({ path: path.join(repoRoot, 'test-results', 'bench-compare.png') });
} finally {
  await browser.close();
  await serve.stop();
  if (!given) fs.rmSync(dataDir, { recursive: true, force: true });
}
