// The pages at 1280×800, in Chromium against `serve`: what a first-hour user on a laptop-sized
// window saw cut, clipped or missing.
//  - Runs: a repeat's "#3" survives a long strategy name; the Sweep column shows the part of the
//    sweep id that tells sweeps apart ("…1502-a1b2c3"), not "sw-2…".
//  - Compare: nine groups and tiny CPU-run figures fit the card (no sideways overflow), and the
//    bars' category labels do not run into each other.
//  - Reports: with no runs, the samples button is on the page that says to load them.
//  - A skip link: one Tab and Enter reach the page's content past the eight navigation links.
//  - Hardware: the stored host measurement is shown; the topology of a host with nothing
//    attached is as tall as what it draws.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Measurement } from '../../electron/contract';
import { saveMeasurement } from '../../electron/services/hardware';
import { openHistory, writeRunsFile } from '../../electron/services/history';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { gh200Machine, tempDir } from '../unit/reports/fixtures';

const SWEEP = 'sw-20261203-101502-a1b2c3';
const CPU_STRATEGIES = ['zero2-offload', 'zero3-offload', 'zero3-offload-param'];
let serve: ServeHandle;
let browser: Browser;
let dataDir: string;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');

/** Three repeats each of CPU smoke runs of tiny-llama: figures around 0.0085 TFLOPS, one sweep. */
function seedCpuRuns(file: string): void {
  const store = openHistory(tempDir('offload-layout-store-'));
  let k = 0;
  for (const strategy of CPU_STRATEGIES)
    for (let rep = 0; rep < 3; rep++) {
      const id = `r-20261203-101502-a1b2c3-${++k}`;
      const tflops = 0.0084 + 0.0001 * k;
      const spec = {
        runId: id,
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
        id,
        sweepId: SWEEP,
        repeatIndex: rep,
        model: 'tiny-llama',
        strategy,
        engine: 'deepspeed',
        steps: 4,
        warmup: 1,
        spec,
        predicted: { tflopsPerGpu: 0, stepSeconds: 0, tokensPerSecond: 0 },
      } as never);
      store.startRun(id, { snapshot: gh200Machine('cpu-vm', 0), machineId: 'm-cpu-vm', logPath: null });
      store.recordHello(id, {
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
      store.recordConfig(id, {
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
        tflopsPerGpu: tflops,
        tokensPerSecond: 2601.6,
        loss: 5.5 - i * 0.01,
        gpuAllocatedBytes: null,
        gpuReservedBytes: null,
        gpuPeakBytes: null,
        hostRssBytes: 1.5e9,
      }));
      store.appendSamples(id, samples as never);
      const stat = (v: number) => ({ median: v, min: v, max: v, mean: v });
      store.finishRun(id, {
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
          tflopsPerGpu: stat(tflops),
          tflopsAggregate: stat(tflops),
          tokensPerSecond: stat(2601.6),
          peakGpuBytes: null,
          peakHostBytes: 1.5e9,
          lossFirst: 5.5,
          lossLast: 5.47,
          overheadFraction: 0.02,
        },
      } as never);
    }
  writeRunsFile(file, store.exportRuns());
  store.close();
}

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  dataDir = tempDir('offload-layout-data-');
  // A stored measurement of this machine, as Setup's Measure step or `measure` leaves it.
  const detected = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'tsx'),
    ['electron/cli/main.ts', 'detect', '--json', '--no-env', '--data-dir', dataDir],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  const machineId = (JSON.parse(detected.stdout) as { machineId: string }).machineId;
  const measurement: Measurement = {
    cpuAdam: [
      { threads: 1, paramsPerSecond: 2.1e8 },
      { threads: 2, paramsPerSecond: 3.9e8 },
    ],
    recommendedCoresPerc: 1,
    recommendedThreads: 2,
    simdPath: 'avx2',
    memoryBandwidthBytesPerSecond: 11.4e9,
    hostDevice: null,
    hostDeviceReason: 'no NVIDIA GPU',
    measuredAt: '2026-12-03T10:00:00.000Z',
    durationMs: 9000,
    machineId,
  };
  saveMeasurement(dataDir, measurement);
  serve = await startServe([], dataDir);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

async function open(hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(serve.url + hash);
  await page.waitForSelector('[data-app-state="loaded"]');
  return page;
}

/** Cards wider inside than they show (content clipped or pushing sideways). */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) out.push(`page ${doc.scrollWidth}/${doc.clientWidth}`);
    for (const el of document.querySelectorAll<HTMLElement>('.card'))
      if (el.scrollWidth > el.clientWidth + 1)
        out.push(`${el.dataset.testid ?? el.querySelector('h2')?.textContent} ${el.scrollWidth}/${el.clientWidth}`);
    return out;
  });
}

/** The bar chart's category labels as drawn (echarts' display list), each with its box on the canvas. */
async function categoryLabels(page: Page): Promise<{ text: string; x: number; w: number; y: number; h: number }[]> {
  await page.waitForFunction(
    () => !!(document.querySelector('[data-testid="chart-bars"]') as unknown as { __echarts?: unknown })?.__echarts,
  );
  return page.$eval('[data-testid="chart-bars"]', (el) => {
    type Rect = { x: number; y: number; width: number; height: number; clone(): Rect; applyTransform(m: number[]): void };
    type Text = { id: number; type: string; style: { text?: string }; transform?: number[]; getBoundingRect(): Rect };
    type Span = { type: string; parent?: Text };
    const chart = (el as unknown as { __echarts: { getZr(): { storage: { getDisplayList(update: boolean): Span[] } } } }).__echarts;
    const texts = new Map<number, Text>();
    for (const e of chart.getZr().storage.getDisplayList(true))
      if (e.type === 'tspan' && e.parent?.type === 'text') texts.set(e.parent.id, e.parent);
    return [...texts.values()].map((t) => {
      const r = t.getBoundingRect().clone();
      if (t.transform) r.applyTransform(t.transform);
      return { text: String(t.style.text ?? ''), x: r.x, w: r.width, y: r.y, h: r.height };
    });
  });
}

function overlaps(labels: { text: string; x: number; w: number; y: number; h: number }[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < labels.length; i++)
    for (let j = i + 1; j < labels.length; j++) {
      const [a, b] = [labels[i], labels[j]];
      if (a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h && b.y < a.y + a.h) out.push(`${a.text} × ${b.text}`);
    }
  return out;
}

async function compare(page: Page, ids: string[]): Promise<void> {
  await page.goto(serve.url + '#/runs');
  await page.waitForSelector('[data-testid="run-row"]');
  for (const id of ids) {
    await page.fill('[data-testid="runs-search"]', id);
    await page.check(`input[aria-label="Select run ${id}"]`);
  }
  await page.fill('[data-testid="runs-search"]', '');
  await page.click('[data-testid="compare-selected"]');
  await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 60_000 });
}

describe('the pages at 1280×800', () => {
  it('Reports with no runs offers the sample dataset itself (not on another page)', async () => {
    const page = await open('#/reports');
    await page.waitForSelector('.empty-state');
    expect(await page.textContent('.empty-state')).not.toContain('Compare page');
    await page.click('[data-testid="reports-load-samples"]');
    await page.waitForSelector('[data-testid="reports-runs"] tbody tr', { timeout: 60_000 });
    // each run's id, model, status and figure on one line, the table inside its card (the id broke over three
    // lines and "tiny-llama" over two), all of them selected
    await page.getByRole('button', { name: 'Select all' }).click();
    await page.waitForSelector('[data-testid="reports-runs"] tbody tr input:checked');
    const cells = await page.$$eval('[data-testid="reports-runs"] tbody tr', (trs) =>
      trs.flatMap((tr) =>
        [...tr.querySelectorAll('td')].slice(2).map((td) => {
          // the lines its words take: one top per line box of each text node
          const tops = new Set<number>();
          const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const range = document.createRange();
            range.selectNodeContents(n);
            for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
          }
          return { text: td.textContent, lines: tops.size };
        }),
      ),
    );
    expect(cells.filter((c) => c.lines > 1)).toEqual([]);
    const fits = await page.$eval('[data-testid="reports-runs"]', (t) => {
      const card = t.closest('.card')!.getBoundingClientRect();
      return t.getBoundingClientRect().right <= card.right + 0.5;
    });
    expect(fits).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'layout-reports-1280x800.png') });
    await page.close();
  }, 120_000);

  it('Runs keeps a repeat’s #3 beside a long strategy name, and shows the end of the sweep id', async () => {
    const fixture = path.join(tempDir('offload-layout-fixture-'), 'cpu.runs.json');
    seedCpuRuns(fixture);
    expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 9 run(s)');
    const page = await open('#/runs');
    await page.fill('[data-testid="runs-search"]', 'a1b2c3');
    await page.waitForSelector('[data-testid="run-row"][data-run-id="r-20261203-101502-a1b2c3-9"]');
    await page.screenshot({ path: path.join(artifacts, 'layout-runs-1280x800.png') });
    // The third repeat of ZeRO-3 param offload, the longest display name.
    const row = '[data-testid="run-row"][data-run-id="r-20261203-101502-a1b2c3-9"]';
    const shown = await page.$eval(row, (r) => {
      const mark = r.querySelector('[data-testid="repeat-mark"]')!.getBoundingClientRect();
      const cell = r.querySelector('[data-testid="repeat-mark"]')!.closest('[role="gridcell"]')!.getBoundingClientRect();
      const sweep = r.querySelector<HTMLElement>('[data-testid="run-sweep"]')!;
      return {
        mark: r.querySelector('[data-testid="repeat-mark"]')!.textContent,
        inside: mark.left >= cell.left && mark.right <= cell.right + 0.5,
        sweep: sweep.textContent,
        sweepClipped: sweep.scrollWidth > sweep.clientWidth,
        sweepTitle: sweep.title,
      };
    });
    expect(shown.mark?.trim()).toBe('#3');
    expect(shown.inside).toBe(true);
    expect(shown.sweepTitle).toBe(SWEEP);
    expect(shown.sweep).toMatch(/1502-a1b2c3$/);
    expect(shown.sweepClipped, JSON.stringify(shown)).toBe(false);
    await page.close();
  }, 120_000);

  it('Compare with nine groups: the card holds the table, the bars’ labels do not collide', async () => {
    cli(['load-samples', '--data-dir', dataDir]); // loaded by the Reports test already: skipped then
    const runs = JSON.parse(cli(['runs', '--json', '--data-dir', dataDir])) as {
      id: string;
      model: string;
      strategy: string;
      status: string;
      tags: string[];
    }[];
    const picked = new Map<string, string>();
    for (const r of runs)
      if (r.status === 'completed' && r.tags.includes('sample') && picked.size < 9 && !picked.has(`${r.model}|${r.strategy}`))
        picked.set(`${r.model}|${r.strategy}`, r.id);
    expect(picked.size).toBe(9);
    const page = await open('#/runs');
    await compare(page, [...picked.values()]);
    await page.screenshot({ path: path.join(artifacts, 'layout-compare-9-groups-1280x800.png'), fullPage: true });
    const labels = (await categoryLabels(page)).filter((l) => l.text.includes(' · ') && !l.text.startsWith('bar:')); // the groups, not the subtitle
    expect(labels).toHaveLength(9);
    expect(overlaps(labels)).toEqual([]);
    expect(await overflowing(page)).toEqual([]);
    await page.close();
  }, 180_000);

  it('Compare of CPU runs (figures near 0.008): nothing spills out of the card', async () => {
    const page = await open('#/runs');
    await compare(page, [
      'r-20261203-101502-a1b2c3-1',
      'r-20261203-101502-a1b2c3-2',
      'r-20261203-101502-a1b2c3-3',
      'r-20261203-101502-a1b2c3-4',
      'r-20261203-101502-a1b2c3-5',
      'r-20261203-101502-a1b2c3-6',
      'r-20261203-101502-a1b2c3-7',
      'r-20261203-101502-a1b2c3-8',
      'r-20261203-101502-a1b2c3-9',
    ]);
    await page.screenshot({ path: path.join(artifacts, 'layout-compare-cpu-1280x800.png'), fullPage: true });
    expect(await page.textContent('[data-testid="delta-table"]')).toContain('0.0086');
    expect(await overflowing(page)).toEqual([]);
    await page.close();
  }, 180_000);

  it('a skip link: Tab, Enter, and the next Tab is in the page, not the navigation', async () => {
    const page = await open('#/runs');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('skip-link');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => window.location.hash)).toBe('#/runs');
    await page.keyboard.press('Tab');
    const where = await page.evaluate(() => ({
      inMain: !!document.activeElement?.closest('main'),
      inNav: !!document.activeElement?.closest('nav'),
    }));
    expect(where).toEqual({ inMain: true, inNav: false });
    await page.close();
  }, 60_000);

  it('Hardware shows the stored measurement, and a host with nothing attached gets a short topology', async () => {
    const page = await open('#/hardware');
    await page.waitForSelector('[data-testid="measurements-card"] [data-testid="measure-result"]', { timeout: 30_000 });
    const text = await page.textContent('[data-testid="measurements-card"]');
    expect(text).toContain('0.39 G params/s (avx2)');
    expect(text).toContain('11.4 GB/s');
    expect(text).toContain('3 Dec 2026, 10:00 UTC');
    const hasDevices = await page.$('[data-testid="topology"] .topo-gpu, [data-testid="topology"] .topo-nvme');
    if (!hasDevices) {
      // This CPU VM: socket and NUMA boxes, one line saying nothing is attached, no empty GPU row.
      const box = await page.$eval('[data-testid="topology"]', (svg) => Number(svg.getAttribute('viewBox')!.split(' ')[3]));
      expect(box).toBeLessThan(200);
      expect(await page.textContent('[data-testid="topology-nothing-attached"]')).toContain('No GPU and no NVMe drive');
    }
    await page.screenshot({ path: path.join(artifacts, 'layout-hardware-1280x800.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
