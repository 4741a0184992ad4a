// Cold start to an interactive first page in `serve` + Chromium (the app's start-up figure): a fresh
// data folder, a new `serve` process and a fresh browser context each time; the clock stops
// when the page marks itself loaded ([data-app-state="loaded"]: shell drawn, first data in).
// Prints the total and its two halves (server start, page load), medians of 5.
import { launchChromium } from '../tests/helpers/browser';
import { startServe } from '../tests/helpers/serve';
import { median, reportFigure } from './figure';

const RUNS = 5;
const serverMs: number[] = [];
const pageMs: number[] = [];
const browser = await launchChromium();
try {
  // One untimed pass so the OS file cache holds node_modules, as on a machine in use.
  {
    const s = await startServe([], undefined, { bundle: true });
    await s.stop();
  }
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const serve = await startServe([], undefined, { bundle: true });
    const t1 = performance.now();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(serve.url + '#/hardware');
    await page.waitForSelector('[data-app-state="loaded"]', { timeout: 30_000 });
    const t2 = performance.now();
    serverMs.push(t1 - t0);
    pageMs.push(t2 - t1);
    await context.close();
    await serve.stop();
  }
} finally {
  await browser.close();
}
const total = serverMs.map((s, i) => s + pageMs[i]);
reportFigure({
  id: 'startup-page-interactive-ms',
  label: 'page load to interactive (serve already up), median of 5',
  value: median(pageMs),
  unit: 'ms',
  goal: '< 1500 ms',
  ok: median(pageMs) < 1500,
});
reportFigure({
  id: 'startup-serve-ready-ms',
  label: '`serve` (dist/server/serve.mjs) start to URL printed, median of 5',
  value: median(serverMs),
  unit: 'ms',
  goal: 'n/a',
  ok: null,
});
reportFigure({
  id: 'startup-cold-total-ms',
  label: 'cold start: serve spawn to interactive page, median of 5',
  value: median(total),
  unit: 'ms',
  goal: '< 1500 ms',
  ok: median(total) < 1500,
});
