// The live resource view in Chromium against `serve`: a real tiny CPU run started from the
// Plan page (tiny-llama, ZeRO-3 + CPU optimizer offload, the bundled runner). While the sweep runs,
// the Run page draws the lanes from `runs/resources-live` and grows them (more CPU points later than
// earlier), the GPU lanes say they are not available here (no series, not zeros), warm-up's end is
// marked once a measured step came; the run's own page, open meanwhile, grows them too and shows the
// stored record when the run ends; the loss curve is drawn live and on the run's page after it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { chooseInterpreter } from '../../electron/services/engine';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';
let serve: ServeHandle;
let browser: Browser;

type Lanes = { running: boolean; cpu: number; gpu: number; titles: string[]; warmupMark: number | null };

/** What the live lanes chart holds now, read from echarts' own option, and whether the sweep still runs. */
const readLanes = (page: Page) =>
  page.evaluate((): Lanes | null => {
    const el = document.querySelector('[data-testid="chart-live-resources"]') as unknown as {
      __echarts?: {
        getOption(): { series: { name: string; data: unknown[]; markLine?: { data?: { xAxis: number }[] } }[]; title: { text: string }[] };
      };
    } | null;
    if (!el?.__echarts) return null;
    const o = el.__echarts.getOption();
    const cpu = o.series.find((s) => s.name === 'cores ≥ 90%');
    return {
      running: document.querySelector('[data-testid="run-page"]')?.getAttribute('data-sweep-state') === 'running',
      cpu: cpu?.data.length ?? 0,
      gpu: o.series.filter((s) => s.name.startsWith('GPU') || s.name.startsWith('PCIe')).length,
      titles: o.title.map((t) => t.text),
      warmupMark: cpu?.markLine?.data?.[0]?.xAxis ?? null,
    };
  });

describe.skipIf(!haveEngine)('live resource view of a real CPU run', () => {
  beforeAll(async () => {
    const dataDir = tempDir('offload-resources-live-');
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ pythonPath: choice.python }));
    serve = await startServe([], dataDir);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it('grows the lanes while the run runs, marks warm-up, and draws the loss live and after', { timeout: 600_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(serve.url + '#/plan');
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '32');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
    for (const id of ['zero3-offload', 'zero2-offload', 'zero3-offload-param']) {
      const box = page.locator(`[data-testid="strategy-${id}"] input[type="checkbox"]`);
      if ((await box.isChecked()) !== (id === 'zero3-offload')) await box.click();
    }
    await page.fill('[data-testid="run-steps"]', '4');
    await page.fill('[data-testid="run-warmup"]', '1');
    await page.fill('[data-testid="run-repeats"]', '1');
    await page.click('[data-testid="start-sweep"]');
    await page.waitForSelector('[data-testid="run-page"]', { timeout: 30_000 });

    // Live: the chart is there while the sweep runs, and has more points a little later.
    await page.waitForFunction(
      () => !!(document.querySelector('[data-testid="chart-live-resources"]') as unknown as { __echarts?: unknown } | null)?.__echarts,
      undefined,
      { timeout: 120_000 },
    );
    const first = (await readLanes(page))!;
    expect(first.running).toBe(true);
    await expect.poll(async () => (await readLanes(page))!.cpu, { timeout: 60_000 }).toBeGreaterThan(first.cpu);
    const later = (await readLanes(page))!;
    expect(later.running, 'the run ended before the lanes could be seen growing').toBe(true);
    expect(later.gpu).toBe(0); // no GPU here: no series, not a zero line
    expect(later.titles[0]).toMatch(/^GPU busy \(%\): not available: /);
    expect(later.titles[1]).toMatch(/^PCIe .*: not available: /);
    expect(await page.textContent('[data-testid="live-resources-now"]')).toMatch(/\d+\/\d+ CPU cores at ≥ 90%/);

    // The run's own page, opened while it runs: the lanes grow there too, and the stored record replaces them when it ends.
    const runId = (await page.getAttribute('[data-testid="sweep-run"]', 'data-run-id'))!;
    const detail = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await detail.goto(`${serve.url}#/runs/${runId}`);
    await detail.waitForFunction(
      () => !!(document.querySelector('[data-testid="chart-run-resources-live"]') as unknown as { __echarts?: unknown } | null)?.__echarts,
      undefined,
      { timeout: 60_000 },
    );
    expect(await detail.textContent('[data-testid="run-resources-live-note"]')).toMatch(/^\d+ sample\(s\) so far/);
    await detail.waitForFunction(
      () => !!(document.querySelector('[data-testid="chart-run-resources"]') as unknown as { __echarts?: unknown } | null)?.__echarts,
      undefined,
      { timeout: 300_000 },
    );
    // The stored record's reading (4 tiny steps may all fall between two 0.5 s samples: it then says so).
    expect(await detail.textContent('[data-testid="run-resources-overall"]')).toMatch(
      /^Measured steps: (.*GPU not available: |no sample inside the measured steps \()/,
    );
    // Its loss grew with the run's steps after the page opened, to the last one.
    const lossSteps = await detail.$eval('[data-testid="chart-run-loss"]', (el) =>
      (el as unknown as { __echarts: { getOption(): { series: { data: { value: [number, number | null] }[] }[] } } }).__echarts
        .getOption()
        .series[0].data.map((d) => d.value[0]),
    );
    expect(Math.max(...lossSteps)).toBe(5);
    await detail.close();

    await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 300_000 });
    const end = (await readLanes(page))!;
    expect(end.cpu).toBeGreaterThanOrEqual(later.cpu);
    expect(end.warmupMark, 'the end of warm-up is marked once a measured step came').toBeGreaterThan(0);
    // The loss of the run, live from its progress events: one point per step, no 'not available'.
    await page.waitForFunction(
      () =>
        !!(document.querySelector('[data-testid="run-loss"] [data-testid="chart-run-loss"]') as unknown as { __echarts?: unknown } | null)
          ?.__echarts,
    );
    const livePoints = await page.$eval(
      '[data-testid="chart-run-loss"]',
      (el) =>
        (el as unknown as { __echarts: { getOption(): { series: { data: unknown[] }[] } } }).__echarts.getOption().series[0].data.length,
    );
    expect(livePoints).toBe(5);
    expect(await page.$('[data-testid="run-loss-missing"]')).toBeNull();
    await page
      .locator('[data-testid="live-resources"]')
      .screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'resource-live.png') });
    await page
      .locator('[data-testid="run-loss"]')
      .screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'resource-live-loss.png') });

    // After the fact, the run's page draws the stored loss under the step timeline.
    await page.goto(`${serve.url}#/runs/${runId}`);
    await page.waitForFunction(
      () => !!(document.querySelector('[data-testid="chart-run-loss"]') as unknown as { __echarts?: unknown } | null)?.__echarts,
    );
    const stored = await page.$eval('[data-testid="chart-run-loss"]', (el) =>
      (el as unknown as { __echarts: { getOption(): { series: { data: { value: [number, number | null] }[] }[] } } }).__echarts
        .getOption()
        .series[0].data.map((d) => d.value),
    );
    expect(stored.map((v) => v[0])).toEqual([1, 2, 3, 4, 5]);
    expect(stored.every((v) => typeof v[1] === 'number' && Number.isFinite(v[1]) && v[1] > 0)).toBe(true);
    await page.close();
  });
});
