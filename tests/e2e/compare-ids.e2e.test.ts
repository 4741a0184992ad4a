// The Compare page, in Chromium against a real `serve`: CPU smoke runs of one
// strategy from two sweeps of the same day (imported through the real CLI), compared.
//  - The two groups are told apart by the end of their sweep ids ("…141502-a1b2c3"), not by the
//    day every sweep id starts with ("sw-20261" twice, as `sweepId.slice(0, 8)` gave).
//  - Their plans predicted zeros (no GPU): the predicted-vs-measured chart has no point, and says so.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openHistory, writeRunsFile } from '../../electron/services/history';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { startServe, type ServeHandle } from '../helpers/serve';
import { gh200Machine, tempDir } from '../unit/reports/fixtures';

const SWEEPS = ['sw-20261203-141502-a1b2c3', 'sw-20261203-153010-d4e5f6'];
const RUNS = ['r-20261203-141502-a1b2c3-1', 'r-20261203-153010-d4e5f6-1'];
let serve: ServeHandle;
let browser: Browser;

/** One completed CPU smoke run of ZeRO-Offload per sweep, as the engine stores it (a plan of zeros). */
function seed(file: string): void {
  const store = openHistory(tempDir('offload-compare-ids-store-'));
  RUNS.forEach((id, k) => {
    const tflops = 0.0084 + 0.0002 * k;
    const spec = {
      runId: id,
      engine: 'deepspeed',
      seqLen: 32,
      microBatch: 1,
      gradAccum: 1,
      steps: 4,
      warmup: 1,
      dsConfig: { zero_optimization: { stage: 2, offload_optimizer: { device: 'cpu' } } },
      prediction: { stepSeconds: 0, tflopsPerGpu: 0, gpuPeakBytes: 0, hostPeakBytes: 2e9 },
    };
    store.createRun({
      id,
      sweepId: SWEEPS[k],
      repeatIndex: 0,
      model: 'tiny-llama',
      strategy: 'zero2-offload',
      engine: 'deepspeed',
      steps: 4,
      warmup: 1,
      spec,
      predicted: { tflopsPerGpu: 0, stepSeconds: 0, tokensPerSecond: 0 },
    } as never);
    store.startRun(id, { snapshot: gh200Machine('cpu-vm', 0), machineId: 'm-cpu-vm', logPath: null });
    store.appendSamples(
      id,
      Array.from({ length: 5 }, (_, i) => ({
        step: i + 1,
        warmup: i === 0,
        stepSeconds: 0.0123,
        tflopsPerGpu: tflops,
        tokensPerSecond: 2601.6,
        loss: 5.5,
        gpuAllocatedBytes: null,
        gpuReservedBytes: null,
        gpuPeakBytes: null,
        hostRssBytes: 1.5e9,
      })) as never,
    );
    const stat = (v: number) => ({ median: v, min: v, max: v, mean: v });
    store.finishRun(id, {
      status: 'completed',
      errorClass: null,
      errorMessage: null,
      result: {
        measuredSteps: 4,
        stepSeconds: stat(0.0123),
        tflopsPerGpu: stat(tflops),
        tokensPerSecond: stat(2601.6),
        peakGpuBytes: null,
        peakHostBytes: 1.5e9,
      },
    } as never);
  });
  writeRunsFile(file, store.exportRuns());
  store.close();
}

beforeAll(async () => {
  const fixture = path.join(tempDir('offload-compare-ids-fixture-'), 'cpu.runs.json');
  seed(fixture);
  const dataDir = tempDir('offload-compare-ids-data-');
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 2 run(s)');
  serve = await startServe([], dataDir);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('Compare: sweeps told apart by the ends of their ids, no prediction of zero', () => {
  it("tells one strategy's two sweeps apart by the ends of their ids, and plots no prediction of zero", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-testid="run-row"]');
    for (const id of RUNS) await page.check(`input[aria-label="Select run ${id}"]`);
    await page.click('[data-testid="compare-selected"]');
    await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 60_000 });
    const labels = await page.$$eval('[data-testid="delta-table"] tbody tr td:first-child', (tds) => tds.map((td) => td.textContent ?? ''));
    expect(
      labels.some((l) => l.includes('(sweep …141502-a1b2c3)')),
      labels.join(' | '),
    ).toBe(true);
    expect(
      labels.some((l) => l.includes('(sweep …153010-d4e5f6)')),
      labels.join(' | '),
    ).toBe(true);
    expect(labels.join(' ')).not.toContain('sw-20261)');
    expect(await page.textContent('[data-testid="delta-table"]')).toContain('0.0084');
    // The predicted-vs-measured chart: no run has a prediction (zeros are none), so no point at 0.
    const texts = await page.$eval('[data-testid="chart-predicted"]', (el) => {
      type D = { type: string; style?: { text?: string } };
      const chart = (el as unknown as { __echarts: { getZr(): { storage: { getDisplayList(update: boolean): D[] } } } }).__echarts;
      return chart
        .getZr()
        .storage.getDisplayList(true)
        .filter((e) => (e.type === 'tspan' || e.type === 'text') && e.style?.text)
        .map((e) => String(e.style!.text));
    });
    expect(texts.join('\n')).toContain('No run here has both a prediction and a measurement.');
    await page.close();
  }, 120_000);
});
