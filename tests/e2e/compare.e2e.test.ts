// Runs → Compare end to end: a runs JSON imported through the real CLI into a fresh data folder,
// a real `serve` on it, Chromium selects two runs on the Runs page and opens Compare.
// The runs are synthetic test data (built through the store's own lifecycle, then exported).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { storeWith, tmpDir } from '../unit/history-queries/helpers';
import { writeRunsFile } from '../../electron/services/history';
import { generate } from '../../bench/history-synthetic';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const source = storeWith([
    { id: 'zero-r1', strategy: 'zero3-offload', tflops: 101, predicted: 112, repeatIndex: 0, steps: 10 },
    { id: 'super-r1', strategy: 'superoffload', tflops: 152, predicted: 141, repeatIndex: 0, ratio: 0.9, steps: 10 },
    { id: 'zero-r2', strategy: 'zero3-offload', tflops: 99, predicted: 112, repeatIndex: 1, steps: 10 },
    { id: 'super-r2', strategy: 'superoffload', tflops: 150, predicted: 141, repeatIndex: 1, ratio: 0.9, steps: 10 },
  ]);
  const fixture = path.join(tmpDir(), 'seed.runs.json');
  writeRunsFile(fixture, source.exportRuns());
  source.close();
  const dataDir = tmpDir();
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 4 run(s), skipped 0');
  serve = await startServe([], dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('Runs → Compare', () => {
  it('selects two runs, opens Compare and shows the headline and rendered charts', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.waitForSelector('[data-testid="run-row"]');
    expect(await page.locator('[data-testid="run-row"]').count()).toBe(4);
    await page.check('[data-run-id="super-r1"] input[type="checkbox"]');
    await page.check('[data-run-id="zero-r1"] input[type="checkbox"]');
    expect(await page.textContent('[data-testid="runs-count"]')).toContain('2 selected');
    await page.click('[data-testid="compare-selected"]');

    await page.waitForSelector('[data-testid="compare-headline"]');
    expect((await page.textContent('[data-testid="compare-headline"] strong'))?.trim()).toBe(
      'SuperOffload was 1.50× faster than ZeRO-3 Offload (TFLOPS/GPU median of 1 repeat)',
    );
    // Every chart drew (echarts 'finished'), and the bar chart is a real canvas with pixels.
    await page.waitForSelector('[data-testid="compare-page"][data-render-ms]');
    const renderMs = Number(await page.getAttribute('[data-testid="compare-page"]', 'data-render-ms'));
    expect(renderMs).toBeGreaterThan(0);
    const painted = await page.$eval('[data-testid="chart-bars"] canvas', (canvas) => {
      const c = canvas as HTMLCanvasElement;
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let nonEmpty = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) nonEmpty++;
      return { width: c.width, nonEmpty };
    });
    expect(painted.width).toBeGreaterThan(100);
    expect(painted.nonEmpty).toBeGreaterThan(1000);
    // The delta table reads against the baseline; the config difference (SuperOffload's ratio) is listed.
    expect(await page.textContent('[data-testid="delta-table"]')).toMatch(/\+50\.5 %/);
    // Grouped by what the key belongs to (here the DeepSpeed config), one column per group.
    expect(await page.textContent('[data-testid="config-diff-deepspeed"]')).toContain('zero_optimization.offload_optimizer.ratio');
    await page.screenshot({ path: path.join(artifacts, 'compare-1280x800.png'), fullPage: false });
    // The page scrolls inside the shell's content pane: look at the lower charts too.
    await page.$eval('.content', (el) => el.scrollTo(0, el.scrollHeight));
    await page.screenshot({ path: path.join(artifacts, 'compare-lower-1280x800.png') });
    await page.$eval('.content', (el) => el.scrollTo(0, 0));

    // Switching the baseline re-computes the deltas and the headline keeps reading the same way.
    await page.selectOption('[data-testid="baseline-select"]', 'super-r1');
    await expect.poll(async () => await page.textContent('[data-testid="delta-table"]')).toMatch(/\u221233\.6 %/); // the typographic minus, as in the report
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('edits a tag on the Runs page and filters by it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-run-id="zero-r2"]');
    await page.click('[data-run-id="zero-r2"] >> text=ZeRO-3 Offload');
    await page.fill('[data-testid="run-tags"]', 'slow-node, rerun');
    await page.click('[data-testid="run-editor"] >> text=Save');
    await page.fill('[data-testid="runs-search"]', 'slow-node');
    await expect.poll(async () => page.locator('[data-testid="run-row"]').count()).toBe(1);
    await page.screenshot({ path: path.join(artifacts, 'runs-1280x800.png') });
    expect(cli(['runs', '--json', '--tag', 'rerun', '--data-dir', serve.dataDir])).toContain('"zero-r2"');

    // Delete asks first, then removes the run from the table and from the store.
    await page.fill('[data-testid="runs-search"]', '');
    await page.check('[data-run-id="zero-r2"] input[type="checkbox"]');
    await page.click('text=Delete…');
    await page.waitForSelector('[role="alertdialog"]');
    expect(await page.locator('[data-testid="run-row"]').count()).toBe(4);
    await page.click('[data-testid="confirm-delete"]');
    await expect.poll(async () => page.locator('[data-testid="run-row"]').count()).toBe(3);
    expect(cli(['runs', '--json', '--data-dir', serve.dataDir])).not.toContain('"zero-r2"');
    await page.close();
  });

  it('keeps the Runs table windowed: 3,000 runs, a few dozen rows in the DOM, the last reachable by scrolling', async () => {
    const dir = tmpDir();
    generate(dir, { runs: 3000, samplesPerRun: 3, warmup: 1 }); // synthetic benchmark rows
    const big = await startServe([], dir);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(big.url + '#/runs');
      await page.waitForSelector('[data-testid="run-row"]', { timeout: 60_000 });
      expect(await page.textContent('[data-testid="runs-count"]')).toContain('3000 run(s)');
      const inDom = await page.locator('[data-testid="run-row"]').count();
      expect(inDom).toBeGreaterThan(10);
      expect(inDom).toBeLessThan(60);
      // Oldest first after sorting by Created ascending; then scroll to the end: the newest is there.
      await page.click('button.sort >> text=Created');
      await page.$eval('.runs-viewport', (el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForSelector('[data-run-id="r-20260103-syn00374-8"]');
      expect(await page.locator('[data-testid="run-row"]').count()).toBeLessThan(60);
    } finally {
      await page.close();
      await big.stop();
    }
  });
});
