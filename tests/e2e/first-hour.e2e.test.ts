// The first hour of a new user, end to end on this GPU-less machine: a fresh data folder holding
// one CPU smoke run (0.0084 TFLOPS per GPU, no prediction) imported through the real CLI, a real
// `serve` on it, and Chromium.
//  - The Reports page's prefilled "Save to" (<data>/reports/report.*) works on the first export,
//     in every format, though the folder did not exist.
//  - Small figures keep their digits: the CLI's `runs`, the report's table and the bundle README
//     say 0.0084, not 0.0.
//  - No prediction is not a prediction of zero: the Plan table's CPU rows say "—", not 0.00 / 0.0,
//     the Plan TFLOPS chart says "needs a GPU" like the table, and the run page says
//     "no prediction (CPU run)", not "0.000".
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openHistory, writeRunsFile } from '../../electron/services/history';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { startServe, type ServeHandle } from '../helpers/serve';
import { gh200Machine, tempDir } from '../unit/reports/fixtures';

const RUN = 'cpu-smoke-1';
const TFLOPS = 0.0084;
let serve: ServeHandle;
let browser: Browser;
let dataDir: string;

/** One completed CPU smoke run of tiny-llama as the app stores it: zeros where a GPU plan predicts. */
function seedCpuRun(file: string): void {
  const store = openHistory(tempDir('offload-first-hour-store-'));
  const spec = {
    runId: RUN,
    engine: 'deepspeed',
    model: {
      id: 'tiny-llama',
      family: 'llama',
      hiddenSize: 64,
      numLayers: 2,
      numHeads: 4,
      numKvHeads: 4,
      intermediateSize: 256,
      vocabSize: 256,
      tieEmbeddings: false,
      ropeTheta: 10000,
      rmsNormEps: 1e-5,
      headDim: 16,
    },
    seqLen: 32,
    microBatch: 1,
    gradAccum: 1,
    steps: 4,
    warmup: 1,
    precision: 'bf16',
    activationCheckpointing: true,
    seed: 1234,
    dsConfig: {
      train_batch_size: 1,
      train_micro_batch_size_per_gpu: 1,
      gradient_accumulation_steps: 1,
      bf16: { enabled: true },
      zero_optimization: { stage: 2, offload_optimizer: { device: 'cpu' } },
    },
    fsdp: null,
    maxSeconds: 3600,
    prediction: {
      stepSeconds: 0,
      tflopsPerGpu: 0,
      tflopsAggregate: 0,
      tokensPerSecond: 0,
      gpuPeakBytes: 0,
      hostPeakBytes: 2e9,
      calibrated: false,
      measured: false,
      params: 164160,
    },
  };
  store.createRun({
    id: RUN,
    sweepId: 'sweep-cpu',
    repeatIndex: 0,
    model: 'tiny-llama',
    strategy: 'zero2-offload',
    engine: 'deepspeed',
    steps: 4,
    warmup: 1,
    spec,
    predicted: { tflopsPerGpu: 0, stepSeconds: 0, tokensPerSecond: 0 },
  } as never);
  store.startRun(RUN, { snapshot: gh200Machine('cpu-vm', 0), machineId: 'm-cpu-vm', logPath: null });
  store.recordHello(RUN, {
    v: 1,
    t: 0,
    type: 'hello',
    runnerVersion: '0.3.1',
    python: '3.12.3',
    torch: '2.9.1+cpu',
    deepspeed: '0.19.8',
    cuda: null,
    accelerator: 'cpu',
    devices: [],
    rank: 0,
    worldSize: 1,
    hostname: 'cpu-vm',
  } as never);
  store.recordConfig(RUN, {
    v: 1,
    t: 0,
    type: 'config',
    engine: 'deepspeed',
    params: 164160,
    trainableParams: 164160,
    layers: 2,
    hidden: 64,
    seqLen: 32,
    globalBatch: 1,
    microBatch: 1,
    gradAccum: 1,
    worldSize: 1,
    activationCheckpointing: true,
    precision: 'bf16',
    effectiveConfig: spec.dsConfig,
    formula: null,
  } as never);
  const samples = Array.from({ length: 5 }, (_, i) => ({
    step: i + 1,
    warmup: i === 0,
    stepSeconds: 0.0123,
    tflopsPerGpu: TFLOPS,
    tokensPerSecond: 2601.6,
    loss: 5.5 - i * 0.01,
    gpuAllocatedBytes: null,
    gpuReservedBytes: null,
    gpuPeakBytes: null,
    hostRssBytes: 1.5e9,
  }));
  store.appendSamples(RUN, samples as never);
  const stat = (v: number) => ({ median: v, min: v, max: v, mean: v });
  store.finishRun(RUN, {
    status: 'completed',
    errorClass: null,
    errorMessage: null,
    result: {
      v: 1,
      t: 0,
      type: 'result',
      status: 'completed',
      measuredSteps: 4,
      stepSeconds: stat(0.0123),
      tflopsPerGpu: stat(TFLOPS),
      tflopsAggregate: stat(TFLOPS),
      tokensPerSecond: stat(2601.6),
      peakGpuBytes: null,
      peakHostBytes: 1.5e9,
      lossFirst: 5.5,
      lossLast: 5.47,
      overheadFraction: 0.02,
    },
  } as never);
  writeRunsFile(file, store.exportRuns());
  store.close();
}

beforeAll(async () => {
  const fixture = path.join(tempDir('offload-first-hour-fixture-'), 'cpu.runs.json');
  seedCpuRun(fixture);
  dataDir = tempDir('offload-first-hour-data-');
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 1 run(s)');
  serve = await startServe([], dataDir);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

async function open(hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(serve.url + hash);
  await page.waitForSelector('[data-app-state="loaded"]');
  return page;
}

/** The texts echarts drew in a chart (canvas: read from its display list). */
async function chartTexts(page: Page, testId: string): Promise<string[]> {
  await page.waitForFunction(
    (id) => !!(document.querySelector(`[data-testid="${id}"]`) as unknown as { __echarts?: unknown })?.__echarts,
    testId,
  );
  return page.$eval(`[data-testid="${testId}"]`, (el) => {
    type D = { type: string; style?: { text?: string } };
    const chart = (el as unknown as { __echarts: { getZr(): { storage: { getDisplayList(update: boolean): D[] } } } }).__echarts;
    return chart
      .getZr()
      .storage.getDisplayList(true)
      .filter((e) => (e.type === 'tspan' || e.type === 'text') && e.style?.text)
      .map((e) => String(e.style!.text));
  });
}

describe('the first hour of a new user (GPU-less machine)', () => {
  it("CLI `runs` prints a CPU run's small TFLOPS with its digits, not 0.0", () => {
    const line = cli(['runs', '--data-dir', dataDir])
      .split('\n')
      .find((l) => l.includes(RUN));
    expect(line).toBeDefined();
    expect(line).toContain('0.0084 TFLOPS/GPU');
    expect(line).toContain('0.0123 s/step');
  });

  it('CLI `plan` on this GPU-less machine prints no prediction for CPU rows, not 0.00 / 0.0', () => {
    const text = cli(['plan', '--model', 'tiny-llama', '--seq', '32', '--micro-batch', '1', '--gpus', '1', '--data-dir', dataDir]);
    const row = text.split('\n').find((l) => l.startsWith('ZeRO-Offload (zero2-offload)'));
    expect(row).toMatch(/^ZeRO-Offload \(zero2-offload\)\s+fits\s/); // the Plan page's verdict words
    expect(row).not.toMatch(/\s0\.0+\s/);
    expect(text).not.toMatch(/aggregate 0 TFLOPS/);
    expect(text).toContain('no prediction (CPU run)');
  });

  it('exports to the prefilled "Save to" in a fresh data folder, in all five formats', async () => {
    const reportsDir = path.join(dataDir, 'reports');
    expect(fs.existsSync(reportsDir)).toBe(false);
    const page = await open('#/reports');
    await page.waitForSelector('[data-testid="reports-runs"] tbody tr');
    await page.check(`input[aria-label="select run ${RUN}"]`);
    const expected: Record<string, string> = {
      html: 'report.html',
      pdf: 'report.pdf',
      csv: 'report.csv',
      json: 'report.json',
      bundle: 'report',
    };
    for (const format of ['html', 'pdf', 'csv', 'json', 'bundle']) {
      await page.check(`input[name="report-format"][value="${format}"]`);
      // The prefill, untouched: <data>/reports/report.<ext> (the bundle: a folder named report).
      const prefill = await page.inputValue('[data-testid="report-path"]');
      expect(path.dirname(prefill)).toBe(reportsDir);
      await page.click('[data-testid="report-export"]');
      await page.waitForSelector('[data-testid="report-result"], [data-testid="report-error"]', { timeout: 90_000 });
      const error = await page.$('[data-testid="report-error"]');
      expect(error ? await error.textContent() : null, format).toBeNull();
      const written = path.join(reportsDir, expected[format]);
      expect(fs.existsSync(path.resolve(prefill)), `${format}: ${prefill}`).toBe(true);
      if (format !== 'bundle') expect(prefill).toBe(written);
    }
    // Item 4 in the report and the bundle: the table says 0.0084, never "0.0 (0.0–0.0)".
    const html = fs.readFileSync(path.join(reportsDir, 'report.html'), 'utf8');
    expect(html).toContain('0.0084');
    expect(html).not.toMatch(/>0\.0 \(0\.0–0\.0\)</);
    expect(html).not.toMatch(/<td class="num">0\.0<\/td>/);
    const bundle = fs.readdirSync(reportsDir).find((f) => !/\.(html|pdf|csv|json)$/.test(f))!;
    const readme = fs.readFileSync(path.join(reportsDir, bundle, 'README.md'), 'utf8');
    expect(readme).toMatch(/\| 0\.0084 \|/);
    // A folder the user typed that does not exist is still refused, not created.
    const typed = path.join(dataDir, 'no-such-folder', 'mine.html');
    await page.check('input[name="report-format"][value="html"]');
    await page.fill('[data-testid="report-path"]', typed);
    await page.click('[data-testid="report-export"]');
    await page.waitForSelector('[data-testid="report-result"], [data-testid="report-error"]', { timeout: 90_000 });
    expect(await page.textContent('[data-testid="report-error"]')).toContain('does not exist');
    expect(fs.existsSync(path.dirname(typed))).toBe(false);
    await page.close();
  }, 240_000);

  it('shows no prediction, not a prediction of zero, on the Plan page of a GPU-less machine', async () => {
    const page = await open('#/plan');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '32');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
    const rows = await page.$$eval('[data-testid="strategy-table"] tbody tr[data-testid^="strategy-"]', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-testid'),
        badge: tr.querySelector('.badge')?.textContent ?? '',
        step: tr.querySelector('[data-testid="strategy-step"]')?.textContent ?? '',
        tflops: tr.querySelector('[data-testid="strategy-tflops"]')?.textContent ?? '',
        title: tr.querySelector('[data-testid="strategy-tflops"]')?.getAttribute('title') ?? '',
      })),
    );
    const cpuRows = rows.filter((r) => r.badge === 'fits');
    expect(cpuRows.length).toBeGreaterThan(0);
    for (const r of cpuRows) {
      expect(r.step, r.id!).toBe('—');
      expect(r.tflops, r.id!).toBe('—');
      expect(r.title).toBe('no prediction (CPU run)');
    }
    for (const r of rows) {
      expect(r.step).not.toMatch(/^0\.0+$/);
      expect(r.tflops).not.toMatch(/^0\.0+$/);
    }
    expect(rows.some((r) => r.badge === 'needs a GPU')).toBe(true);
    // The chart gives the table's reason, not a generic "does not fit".
    const texts = (await chartTexts(page, 'chart-predicted-tflops')).join('\n');
    expect(texts).toContain('needs a GPU');
    expect(texts).not.toContain('does not fit');
    expect(texts).toContain('no prediction (CPU run)');
    expect(texts.split('\n').filter((t) => t.endsWith('…'))).toEqual([]);
    await page.close();
  }, 120_000);

  it('the run page says "no prediction (CPU run)", not "Predicted 0.000 s"', async () => {
    const page = await open(`#/runs/${RUN}`);
    await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${RUN}"]`);
    const figures = await page.$$eval('[data-testid="run-figures"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    const [step, tflops, tokens] = figures;
    expect(step[1]).toBe('0.0123');
    expect(tflops[1]).toBe('0.0084');
    for (const row of [step, tflops, tokens]) {
      expect(row[2]).toContain('no prediction (CPU run)');
      expect(row[2]).not.toMatch(/\b0\.0+\b/);
    }
    await page.close();
  }, 60_000);
});
