// Dates and the per-step chart, in Chromium at 1280×800 against a real `serve` holding the H200
// sample runs: one date format (Runs list, run page), the run page's per-step chart scaled to the
// measured steps with the warm-up step its own grey series (an arrow on the edge when off the
// scale). Screenshots: test-results/e2e/run-page-dates-steps-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { formatDateTime } from '../../electron/contract/format';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tmpDir } from '../unit/history-queries/helpers';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
interface RunRow {
  id: string;
  strategy: string;
  createdAt: string;
  startedAt: string | null;
  sweepId: string | null;
  status: string;
}
let runs: RunRow[] = [];

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const dataDir = tmpDir();
  cli(['load-samples', '--data-dir', dataDir]);
  runs = JSON.parse(cli(['runs', '--json', '--data-dir', dataDir])) as RunRow[];
  serve = await startServe([], dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('dates and the per-step chart at 1280×800 (Runs list, run page)', () => {
  it('writes dates one way on Runs and the run page, and scales the per-step chart to the measured steps', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const run = runs.find((r) => r.strategy === 'superoffload' && r.status === 'completed')!;
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-testid="run-row"]');
    expect(await page.textContent('.runs-head')).toContain('Created (UTC)');
    await page.fill('[data-testid="runs-search"]', run.id);
    expect((await page.textContent(`[data-run-id="${run.id}"] [data-testid="run-link"]`))?.trim()).toBe(
      formatDateTime(run.createdAt, 'short'),
    );
    expect(formatDateTime(run.createdAt, 'short')).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);

    await page.goto(serve.url + `#/runs/${encodeURIComponent(run.id)}`);
    await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${run.id}"]`);
    expect(await page.textContent('.run-detail .kv')).toContain(formatDateTime(run.startedAt ?? run.createdAt));
    await page.waitForFunction(
      () => !!(document.querySelector('[data-testid="chart-run-steps"]') as unknown as { __echarts?: unknown })?.__echarts,
    );
    const chart = await page.$eval('[data-testid="chart-run-steps"]', (el) => {
      type Opt = {
        yAxis: { min?: number; max?: number }[];
        series: { name: string; yAxisIndex?: number; data: { value: number[]; actual?: number; symbol?: string }[] }[];
        legend: { data?: unknown }[];
      };
      const o = (el as unknown as { __echarts: { getOption(): Opt } }).__echarts.getOption();
      return {
        yAxis: o.yAxis.map((a) => ({ min: a.min, max: a.max })),
        series: o.series.map((s) => ({ name: s.name, axis: s.yAxisIndex ?? 0, data: s.data })),
      };
    });
    const measured = chart.series.find((s) => s.name === 'step time (s)')!.data.map((d) => d.value[1]);
    const warm = chart.series.filter((s) => s.name === 'warm-up' && s.axis === 0).flatMap((s) => s.data);
    expect(warm.length).toBeGreaterThan(0);
    // The axis holds the measured steps closely (not the warm-up's seconds).
    expect(chart.yAxis[0].max!).toBeGreaterThanOrEqual(Math.max(...measured));
    expect(chart.yAxis[0].max! - chart.yAxis[0].min!).toBeLessThan(Math.max(...measured) * 0.6);
    const slowest = warm.reduce((a, b) => ((b.actual ?? 0) > (a.actual ?? 0) ? b : a));
    if ((slowest.actual ?? 0) > chart.yAxis[0].max!) {
      expect(slowest.symbol).toBe('arrow');
      expect(await page.textContent('[data-testid="run-steps-note"]')).toMatch(/Warm-up off the scale/);
    }
    console.log(
      `run page chart: measured ${Math.min(...measured).toFixed(2)}–${Math.max(...measured).toFixed(2)} s on an axis ${chart.yAxis[0].min}–${chart.yAxis[0].max}; warm-up ${warm.map((w) => w.actual?.toFixed(2)).join(', ')} s`,
    );
    await page.locator('[data-testid="chart-run-steps"]').scrollIntoViewIfNeeded();
    await page.locator('[data-testid="chart-run-steps"]').screenshot({ path: path.join(artifacts, 'run-page-dates-steps-chart-1280.png') });
    await page.screenshot({ path: path.join(artifacts, 'run-page-dates-steps-1280.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
