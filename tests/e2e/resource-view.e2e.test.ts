// The resource view of a real run in Chromium: a real tiny CPU run (tiny-llama, ZeRO-3 +
// CPU optimizer offload, the bundled runner) through the CLI into a data folder, then its run page
// under `serve`: the lanes chart is drawn, the CPU lane's per-core load is read from the stored
// samples, and the GPU lanes are left out, one line saying they were not measured here and why (never zeros).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chooseInterpreter } from '../../electron/services/engine';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';
let serve: ServeHandle;
let browser: Browser;
let runId: string;
let otherId: string;

describe.skipIf(!haveEngine)('resource view of a real CPU run', () => {
  beforeAll(async () => {
    const dataDir = tempDir('offload-resources-e2e-');
    const out = cli([
      'run',
      '--model',
      'tiny-llama',
      '--strategy',
      'zero3-offload,zero2-offload',
      '--seq',
      '32',
      '--micro-batch',
      '1',
      '--steps',
      '40',
      '--warmup',
      '1',
      '--data-dir',
      dataDir,
      '--python',
      choice.python,
      '--json',
    ]);
    // 40 steps: a tiny CPU step takes 0.03–0.15 s here, and the measured steps must span samples taken every 0.5 s.
    [runId, otherId] = (JSON.parse(out) as { id: string }[]).map((r) => r.id);
    serve = await startServe([], dataDir);
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it(
    'draws the lanes from stored samples, with the per-core load; the GPU lanes left out, one line saying why',
    { timeout: 120_000 },
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${serve.url}#/runs/${runId}`);
      await page.waitForSelector('[data-testid="run-resources"]');
      await page.waitForFunction(
        () => !!(document.querySelector('[data-testid="chart-run-resources"]') as unknown as { __echarts?: unknown })?.__echarts,
      );
      const overall = await page.textContent('[data-testid="run-resources-overall"]');
      expect(overall).toMatch(/GPU not available: /);
      expect(overall).toMatch(/\d+ core\(s\) at ≥90%.*cores used: /);
      // The chart's CPU series holds the stored per-core counts, one point per sample.
      const cpuPoints = await page.$eval('[data-testid="chart-run-resources"]', (el) => {
        const chart = (
          el as unknown as {
            __echarts: { getOption(): { series: { name: string; data: [number, number][] }[]; title: { text: string }[] } };
          }
        ).__echarts;
        const o = chart.getOption();
        return {
          cpu: o.series.find((s) => s.name === 'cores ≥ 90%')?.data.length ?? 0,
          gpuSeries: o.series.filter((s) => s.name.startsWith('GPU')).length,
          titles: o.title.map((t) => t.text),
        };
      });
      expect(cpuPoints.cpu).toBeGreaterThan(2);
      expect(cpuPoints.gpuSeries).toBe(0); // not drawn as zeros
      // the lanes this run did not measure are left out (as in the report), one line saying which and why
      expect(cpuPoints.titles.filter((t) => /GPU busy|PCIe/.test(t))).toEqual([]);
      expect(await page.textContent('[data-testid="run-resources-not-measured"]')).toMatch(
        /^Not measured in this run: GPU busy, PCIe and NVLink \([^)]+\)/,
      );
      await page.screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'resource-view.png'), fullPage: true });
    },
  );

  it("Compare overlays the two runs' lanes on one time axis from each run's first measured step", { timeout: 120_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${serve.url}#/runs`);
    await page.waitForSelector('[data-testid="run-row"]');
    for (const id of [runId, otherId]) await page.check(`input[aria-label="Select run ${id}"]`);
    await page.click('[data-testid="compare-selected"]');
    await page.waitForFunction(
      () => !!(document.querySelector('[data-testid="chart-compare-resources"]') as unknown as { __echarts?: unknown } | null)?.__echarts,
      undefined,
      { timeout: 60_000 },
    );
    const read = () =>
      page.$eval('[data-testid="chart-compare-resources"]', (el) => {
        const o = (
          el as unknown as {
            __echarts: { getOption(): { series: { name: string; data: [number, number][] }[]; title: { text: string }[] } };
          }
        ).__echarts.getOption();
        return { series: o.series.map((s) => ({ name: s.name, xs: s.data.map((d) => d[0]) })), titles: o.title.map((t) => t.text) };
      });
    const o = await read();
    // Both runs' real CPU lanes; no GPU or PCIe series on this machine, their titles saying why.
    expect(o.series.map((s) => s.name).sort()).toEqual(['A · cores ≥ 90%', 'B · cores ≥ 90%']);
    for (const s of o.series) {
      expect(s.xs.length, s.name).toBeGreaterThan(0);
      // time counted from the run's first measured step: nothing before it (x is rounded to 10 ms, so a sample a few
      // ms after the step began reads 0 — the clean-clone CI of c1383b4 drew one)
      expect(Math.min(...s.xs), s.name).toBeGreaterThanOrEqual(0);
      expect(Math.min(...s.xs), s.name).toBeLessThanOrEqual(1); // and the first sample after it within a second
    }
    expect(o.titles[1]).toMatch(/^GPU busy \(%\) — A: not available: .* — B: not available: /);
    expect(o.titles[2]).toMatch(/^PCIe .* — A: not available: /);
    // Swapping the runs swaps A and B.
    const [a, b] = await Promise.all(
      ['a', 'b'].map((w) => page.$eval(`[data-testid="overlay-run-${w}"]`, (el) => (el as HTMLSelectElement).value)),
    );
    expect(new Set([a, b])).toEqual(new Set([runId, otherId])); // the first two compared runs by default
    await page.selectOption('[data-testid="overlay-run-a"]', b);
    await page.selectOption('[data-testid="overlay-run-b"]', a);
    const [labelA, labelB] = /^A \(solid\): (.*)   B \(dashed\): (.*)$/.exec(o.titles[0])!.slice(1);
    await expect.poll(async () => (await read()).titles[0]).toBe(`A (solid): ${labelB}   B (dashed): ${labelA}`);
    await page
      .locator('[data-testid="compare-resources"]')
      .screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'resource-overlay.png') });
    await page.close();
  });

  it("the HTML report carries both runs' lanes as SVG and the attribution sentence", async () => {
    const d = await invokeOverServe<{ base64: string }>(serve, 'reports/download', { runIds: [runId, otherId], format: 'html' });
    const html = Buffer.from(d.base64, 'base64').toString('utf8');
    expect(html).toContain('<h2>Resources during the runs</h2>');
    expect(html).toMatch(/Not measured in any of these runs: GPU busy, PCIe and NVLink \(/);
    for (const id of [runId, otherId]) {
      const at = html.indexOf(`data-resources-run="${id}"`);
      expect(at, id).toBeGreaterThan(0);
      const block = html.slice(at, at + 200_000);
      // No GPU here: its lanes are left out of the charts, and one line says so.
      expect(block).toMatch(/<figcaption>CPU cores over the run/);
      expect(block.slice(0, block.indexOf('</svg>'))).not.toContain('GPU busy (%)');
      expect(block).toMatch(/<strong>Measured steps:<\/strong> GPU not available: [^<]*core\(s\) at ≥90%/);
    }
  });
});
