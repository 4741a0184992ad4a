// The resource view of a real run in Chromium (issue 31): a real tiny CPU run (tiny-llama, ZeRO-3 +
// CPU optimizer offload, the bundled runner) through the CLI into a data folder, then its run page
// under `serve`: the lanes chart is drawn, the CPU lane's per-core load is read from the stored
// samples, and the GPU lanes say they are not available here instead of drawing zeros.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chooseInterpreter } from '../../electron/services/engine';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';
let serve: ServeHandle;
let browser: Browser;
let runId: string;

describe.skipIf(!haveEngine)('resource view of a real CPU run', () => {
  beforeAll(async () => {
    const dataDir = tempDir('offload-resources-e2e-');
    const out = cli(['run', '--model', 'tiny-llama', '--strategy', 'zero3-offload', '--seq', '32', '--micro-batch', '1', '--steps', '3', '--warmup', '1', '--data-dir', dataDir, '--python', choice.python, '--json']);
    runId = (JSON.parse(out) as { id: string }[])[0].id;
    serve = await startServe([], dataDir);
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it('draws the lanes from stored samples, with the per-core load and the GPU saying why it is not measured', { timeout: 120_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${serve.url}#/runs/${runId}`);
    await page.waitForSelector('[data-testid="run-resources"]');
    await page.waitForFunction(() => !!(document.querySelector('[data-testid="chart-run-resources"]') as unknown as { __echarts?: unknown })?.__echarts);
    const overall = await page.textContent('[data-testid="run-resources-overall"]');
    expect(overall).toMatch(/GPU not available: /);
    expect(overall).toMatch(/\d+ core\(s\) at ≥90%.*cores used: /);
    // The chart's CPU series holds the stored per-core counts, one point per sample.
    const cpuPoints = await page.$eval('[data-testid="chart-run-resources"]', (el) => {
      const chart = (el as unknown as { __echarts: { getOption(): { series: { name: string; data: [number, number][] }[]; title: { text: string }[] } } }).__echarts;
      const o = chart.getOption();
      return { cpu: o.series.find((s) => s.name === 'cores ≥ 90%')?.data.length ?? 0, gpuSeries: o.series.filter((s) => s.name.startsWith('GPU')).length, titles: o.title.map((t) => t.text) };
    });
    expect(cpuPoints.cpu).toBeGreaterThan(2);
    expect(cpuPoints.gpuSeries).toBe(0); // not drawn as zeros
    expect(cpuPoints.titles[0]).toMatch(/GPU busy \(%\): not available: /);
    await page.screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'resource-view.png'), fullPage: true });
  });
});
