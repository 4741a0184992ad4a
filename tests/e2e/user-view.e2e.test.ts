// The user's view (issue 17), walked in Chromium at 1280×800 and 1920×1080 against a real `serve`
// holding the H200 sample runs: a run page opens by URL and agrees with the Runs list (median of
// measured steps); a strategy keeps its colour across two comparisons; no chart's labels overlap
// or leave the chart (read from echarts' own rendered text boxes); the Plan page plans for a
// loaded `detect --json` of an H200 and shows "—" (no bar) for strategies that do not fit.
// Screenshots go to test-results/e2e/user-view-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tmpDir } from '../unit/history-queries/helpers';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
const H200 = path.join(repoRoot, 'tests', 'fixtures', 'hosts', 'h200-sxm-x86', 'machine.json');

function cli(args: string[]) {
  const result = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'tsx'), ['electron/cli/main.ts', ...args], { cwd: repoRoot, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

interface RunRow {
  id: string;
  strategy: string;
  stepSeconds: number | null;
  sweepId: string | null;
}
let runs: RunRow[] = [];
// The repeats of one strategy in the plain sample sweep (the tuned samples try other knobs).
const SWEEP = 'sw-sample-h200-llama-3.2-3b-sweep';
const idsOf = (strategy: string) => runs.filter((r) => r.strategy === strategy && r.sweepId === SWEEP).map((r) => r.id);

async function waitForChart(page: Page, testId: string) {
  await page.waitForFunction((id) => !!(document.querySelector(`[data-testid="${id}"]`) as unknown as { __echarts?: unknown })?.__echarts, testId);
}

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const dataDir = tmpDir();
  expect(cli(['load-samples', '--data-dir', dataDir])).toMatch(/imported \d+ sample run/);
  runs = JSON.parse(cli(['runs', '--json', '--data-dir', dataDir])) as RunRow[];
  expect(runs.length).toBeGreaterThanOrEqual(6);
  serve = await startServe([], dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** Every text box echarts drew in a chart: inside the chart, and no two overlapping. */
async function labelProblems(page: Page, testId: string): Promise<string[]> {
  await waitForChart(page, testId);
  return page.$eval(`[data-testid="${testId}"]`, (el, id) => {
    type Rect = { x: number; y: number; width: number; height: number; clone(): Rect; applyTransform(m: unknown): Rect };
    type Displayable = { type: string; parent?: unknown; style?: { text?: string; opacity?: number }; invisible?: boolean; getBoundingRect(): Rect; getComputedTransform(): unknown };
    const chart = (el as unknown as { __echarts: { getWidth(): number; getHeight(): number; getZr(): { storage: { getDisplayList(update: boolean): Displayable[] } } } }).__echarts;
    const W = chart.getWidth();
    const H = chart.getHeight();
    const texts = chart
      .getZr()
      .storage.getDisplayList(true)
      .filter((e) => (e.type === 'tspan' || e.type === 'text') && e.style?.text && !e.invisible && e.style.opacity !== 0)
      .map((e) => {
        const r = e.getBoundingRect().clone();
        const m = e.getComputedTransform();
        if (m) r.applyTransform(m);
        return { text: String(e.style!.text), parent: e.parent, x: r.x, y: r.y, w: r.width, h: r.height };
      });
    const problems: string[] = [];
    for (const t of texts) {
      if (t.x < -1 || t.y < -1 || t.x + t.w > W + 1 || t.y + t.h > H + 1) problems.push(`${id}: "${t.text}" leaves the chart (${t.x.toFixed(0)},${t.y.toFixed(0)} ${t.w.toFixed(0)}×${t.h.toFixed(0)} in ${W}×${H})`);
      if (t.text.endsWith('…')) problems.push(`${id}: "${t.text}" is cut`);
    }
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i];
        const b = texts[j];
        if (a.parent && a.parent === b.parent) continue; // lines of one label
        const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
        const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
        if (ox > 2 && oy > 2) problems.push(`${id}: "${a.text}" overlaps "${b.text}" (${[a, b].map((t) => `${t.x.toFixed(0)},${t.y.toFixed(0)} ${t.w.toFixed(0)}×${t.h.toFixed(0)}`).join(' / ')} in ${W})`);
      }
    if (texts.length < 2) problems.push(`${id}: only ${texts.length} text boxes found — the check cannot see the labels`);
    return problems;
  }, testId);
}

/** The colour each category's bar is drawn in, from the chart's option. */
async function barColours(page: Page, testId: string): Promise<Record<string, string>> {
  return page.$eval(`[data-testid="${testId}"]`, (el) => {
    const chart = (el as unknown as { __echarts: { getOption(): { xAxis: { data: string[] }[]; series: { type: string; data: { itemStyle?: { color?: string } }[] }[] } } }).__echarts;
    const o = chart.getOption();
    const bar = o.series.find((s) => s.type === 'bar')!;
    return Object.fromEntries(o.xAxis[0].data.map((name, i) => [name.split('\n')[0], bar.data[i]?.itemStyle?.color ?? '']));
  });
}

/** A full-page screenshot: the content pane scrolls inside the shell, so let it grow first. */
async function shoot(page: Page, name: string) {
  // Nothing runs off the side of the window (the page scrolls down, never sideways).
  expect(await page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.querySelector('.content')?.scrollWidth ?? 0) - window.innerWidth), `${name} is wider than the window`).toBeLessThanOrEqual(0);
  await page.addStyleTag({ content: 'html, body, #root, .shell { height: auto !important; } .content { overflow: visible !important; }' });
  await page.waitForTimeout(300); // charts follow their new size
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), `${name}: content wider than the window`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(artifacts, `user-view-${name}.png`), fullPage: true });
}

async function compare(page: Page, ids: string[]) {
  await page.goto(serve.url + '#/runs');
  await page.waitForSelector('[data-testid="run-row"]');
  await page.evaluate(() => window.scrollTo(0, 0));
  // Start from an empty selection: select all shown, then none.
  const all = page.locator('input[aria-label="Select all shown"]');
  if (await all.isChecked()) await all.uncheck();
  else {
    await all.check();
    await all.uncheck();
  }
  // The table is windowed: find each run by its id, then tick it (the selection outlives the search).
  for (const id of ids) {
    await page.fill('[data-testid="runs-search"]', id);
    await page.check(`[data-run-id="${id}"] input[type="checkbox"]`);
  }
  await page.fill('[data-testid="runs-search"]', '');
  expect(await page.textContent('[data-testid="runs-count"]')).toContain(`${ids.length} selected`);
  await page.click('[data-testid="compare-selected"]');
  await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 30_000 });
}

for (const [width, height] of [
  [1280, 800],
  [1920, 1080],
] as const) {
  describe(`the user's view at ${width}×${height}`, () => {
    it('opens a run page by URL whose step statistic agrees with the Runs list', async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(serve.url + '#/runs');
      await page.waitForSelector('[data-testid="run-row"]');
      const header = await page.textContent('.runs-head');
      expect(header).toMatch(/high best/);
      expect(header).toMatch(/low best/);
      const run = runs.find((r) => r.strategy === 'superoffload' && r.sweepId === SWEEP)!;
      await page.fill('[data-testid="runs-search"]', run.id);
      const listStep = (await page.locator(`[data-run-id="${run.id}"] [role="gridcell"]`).last().textContent())!.trim();
      expect(listStep).toBe(run.stepSeconds!.toFixed(3));
      await shoot(page, `runs-${width}`);

      await page.goto(serve.url + `#/runs/${encodeURIComponent(run.id)}`);
      await page.reload();
      await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${run.id}"]`);
      const figures = await page.textContent('[data-testid="run-figures"]');
      expect(figures).toContain('median of measured steps');
      expect(figures).toContain(listStep);
      expect(await page.textContent('[data-testid="run-machine"]')).toContain('H200');
      expect(await page.textContent('[data-testid="run-config"]')).toMatch(/Micro batch/);
      await page.waitForSelector('[data-testid="chart-run-steps"] canvas');
      expect(await labelProblems(page, 'chart-run-steps')).toEqual([]);
      await shoot(page, `run-${width}`);
      expect(errors).toEqual([]);
      await page.close();
    });

    it('keeps a strategy\'s colour across two comparisons, with charts whose labels neither overlap nor clip', async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      expect(idsOf('superoffload').length).toBeGreaterThan(0);
      await compare(page, [...idsOf('superoffload'), ...idsOf('zero2-offload')]);
      const first = await barColours(page, 'chart-bars');
      // The step statistic agrees with the Runs list: Compare's step time for a strategy is the
      // median of its runs' medians of measured steps (two repeats: their mean).
      await page.locator('.metric-switch label', { hasText: 'Step time' }).locator('input').check();
      const super2 = runs.filter((r) => idsOf('superoffload').includes(r.id)).map((r) => r.stepSeconds!);
      const expected = super2.length === 2 ? (super2[0] + super2[1]) / 2 : super2.sort((a, b) => a - b)[Math.floor(super2.length / 2)];
      await expect.poll(async () => (await page.textContent('[data-testid="delta-table"] caption')) ?? '').toMatch(/^Step time \(s\).*median of measured steps/);
      expect(await page.locator('[data-testid="delta-table"] tr', { hasText: 'SuperOffload' }).locator('td').nth(1).textContent()).toBe(expected.toFixed(3));
      await page.locator('.metric-switch label', { hasText: 'Model TFLOPS per GPU' }).locator('input').check();
      const charts = ['chart-bars', 'chart-step-time', 'chart-step-tflops', 'chart-memory', 'chart-predicted'];
      for (const c of charts) expect(await labelProblems(page, c)).toEqual([]);
      await shoot(page, `compare-a-${width}`);

      await compare(page, [...idsOf('superoffload'), ...idsOf('gpu-zero2'), ...idsOf('fsdp2-cpu-offload')]);
      const second = await barColours(page, 'chart-bars');
      expect(first.SuperOffload).toBeTruthy();
      expect(second.SuperOffload).toBe(first.SuperOffload);
      // Distinct strategies, distinct colours.
      expect(new Set(Object.values(second)).size).toBe(Object.keys(second).length);
      // The step lines draw SuperOffload in the same colour as its bar.
      const lineColours = await page.$eval('[data-testid="chart-step-time"]', (el) => {
        const o = (el as unknown as { __echarts: { getOption(): { series: { name: string; itemStyle?: { color?: string } }[] } } }).__echarts.getOption();
        return o.series.map((s) => [s.name, s.itemStyle?.color ?? '']);
      });
      expect(lineColours.filter(([n]) => n.startsWith('SuperOffload')).every(([, c]) => c === first.SuperOffload)).toBe(true);
      for (const c of charts) expect(await labelProblems(page, c)).toEqual([]);
      await shoot(page, `compare-b-${width}`);
      await page.locator('.compare-grid').screenshot({ path: path.join(artifacts, `user-view-compare-charts-${width}.png`) });
      // A report takes the comparison's runs, its baseline first.
      await page.click('[data-testid="compare-report"]');
      await page.waitForSelector('[data-testid="reports-page"]');
      await expect.poll(async () => await page.textContent('[data-testid="reports-page"]')).toContain(`Runs (${idsOf('superoffload').length + idsOf('gpu-zero2').length + idsOf('fsdp2-cpu-offload').length} selected)`);
      await page.close();
    });

    it('shows the disks detection found on the Hardware page', async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      await page.goto(serve.url + '#/hardware');
      await page.waitForSelector('[data-testid="disks-card"]', { timeout: 60_000 });
      expect(await page.textContent('[data-testid="disks-card"]')).toMatch(/Disk|No disks/);
      await shoot(page, `hardware-${width}`);
      await page.close();
    });

    it('plans for a loaded detect --json of an H200; strategies that do not fit show — and no bar', async () => {
      // Light at 1280, dark at 1920: the charts follow the theme.
      const page = await browser.newPage({ viewport: { width, height }, colorScheme: width >= 1920 ? 'dark' : 'light' });
      await page.goto(serve.url + '#/plan');
      await page.waitForSelector('[data-testid="machine-file"]');
      // The machines to plan for: this one, those seen in history (the samples' H200), the catalogue.
      await expect.poll(async () => (await page.$$eval('[data-testid="machine-select"] option', (os) => os.map((o) => o.textContent ?? ''))).join('\n')).toMatch(/This machine[\s\S]*h200-sxm-x86 · 1 × NVIDIA H200 \(seen in history\)[\s\S]*\(catalogue\)/);
      await page.setInputFiles('[data-testid="machine-file"]', H200);
      await expect.poll(async () => await page.textContent('[data-testid="machine-summary"]')).toMatch(/1 × NVIDIA H200/);
      await page.selectOption('[data-testid="model-select"]', 'llama-3.1-8b');
      await page.click('[data-testid="compute-plan"]');
      await page.waitForSelector('[data-testid="plan-result"]');
      expect(await page.textContent('[data-testid="recommendation"]')).toContain('h200-sxm-x86');
      const rows = await page.$$eval('[data-testid="strategy-table"] tbody tr[data-testid^="strategy-"]', (trs) =>
        trs.map((tr) => ({ fits: !tr.querySelector('.badge-failed'), step: tr.querySelector('[data-testid="strategy-step"]')!.textContent, tflops: tr.querySelector('[data-testid="strategy-tflops"]')!.textContent })),
      );
      expect(rows.some((r) => !r.fits)).toBe(true);
      expect(rows.some((r) => r.fits)).toBe(true);
      for (const r of rows.filter((x) => !x.fits)) expect([r.step, r.tflops]).toEqual(['—', '—']);
      for (const r of rows.filter((x) => x.fits)) expect(r.tflops).not.toBe('—');
      // No bar for a strategy that does not fit (the category says so instead).
      await waitForChart(page, 'chart-predicted-tflops');
      const bars = await page.$eval('[data-testid="chart-predicted-tflops"]', (el) => {
        const o = (el as unknown as { __echarts: { getOption(): { series: { data: { value: number | null }[] }[] } } }).__echarts.getOption();
        return o.series[0].data.map((d) => d.value);
      });
      rows.forEach((r, i) => (r.fits ? expect(bars[i]).toBeGreaterThan(0) : expect(bars[i]).toBeNull()));
      for (const c of ['chart-predicted-tflops', 'chart-memory']) expect(await labelProblems(page, c)).toEqual([]);
      // The two plan charts share the width: each card takes about half of it at 1920 too.
      const cardWidth = await page.$eval('[data-testid="chart-predicted-tflops"]', (el) => el.getBoundingClientRect().width);
      expect(cardWidth).toBeGreaterThan(width >= 1920 ? 650 : 400);
      await shoot(page, `plan-${width}`);
      await page.locator('.plan-charts').screenshot({ path: path.join(artifacts, `user-view-plan-charts-${width}.png`) });
      await page.close();
    });
  });
}
