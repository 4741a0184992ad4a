// The user's view, walked in Chromium at 1280×800 and 1920×1080 against a real `serve`
// holding the H200 sample runs: a run page opens by URL and agrees with the Runs list (median of
// measured steps); a strategy keeps its colour across two comparisons; no chart's labels overlap
// or leave the chart (read from echarts' own rendered text boxes); the Plan page plans for a
// loaded `detect --json` of an H200 and shows "—" (no bar) for strategies that do not fit; the
// numbers agree across Plan, Run, Runs, Compare, CLI compare and the report downloaded by the
// browser (HTML, CSV, PDF): one baseline (the baseline group's median of repeats), one step
// statistic (median of measured steps), host memory measured beside predicted.
// Screenshots go to test-results/e2e/user-view-*.png and to $USER_VIEW_SHOTS (default
// /tmp/offload-user-view), to be looked at.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Comparison, RunDetail, RunSpec } from '../../electron/contract';
import { formatBytes } from '../../electron/contract/format';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tmpDir } from '../unit/history-queries/helpers';
import { parseCsv } from '../unit/reports/csv-parse';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
const shots = process.env.USER_VIEW_SHOTS ?? path.join(os.tmpdir(), 'offload-user-view');
const H200 = path.join(repoRoot, 'tests', 'fixtures', 'hosts', 'h200-sxm-x86', 'machine.json');

interface RunRow {
  id: string;
  strategy: string;
  stepSeconds: number | null;
  sweepId: string | null;
}
let runs: RunRow[] = [];
// The repeats of one strategy in the plain sample sweep (the tuned samples try other knobs).
const SWEEP = 'sw-sample-h200-llama-3.2-3b-sweep';
// The app's own H200 specs (tuned sweep, micro batch 8, with the tuner's predictions): ZeRO-2
// offload, SuperOffload and ZeRO-3 offload twice each, FSDP2 once.
const TUNED = [
  '01-zero2-offload-mb8-rep1',
  '17-zero2-offload-mb8-rep2',
  '03-superoffload-mb8-rep1',
  '16-superoffload-mb8-rep2',
  '02-zero3-offload-mb8-rep1',
  '15-zero3-offload-mb8-rep2',
  '04-fsdp2-cpu-offload-mb8-rep1',
];
const FSDP = '04-fsdp2-cpu-offload-mb8-rep1';
const idsOf = (strategy: string) => runs.filter((r) => r.strategy === strategy && r.sweepId === SWEEP).map((r) => r.id);

async function waitForChart(page: Page, testId: string) {
  await page.waitForFunction(
    (id) => !!(document.querySelector(`[data-testid="${id}"]`) as unknown as { __echarts?: unknown })?.__echarts,
    testId,
  );
}

const invoke = <T>(channel: string, payload: unknown) => invokeOverServe<T>(serve, channel, payload);

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  fs.mkdirSync(shots, { recursive: true });
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
  return page.$eval(
    `[data-testid="${testId}"]`,
    (el, id) => {
      type Rect = { x: number; y: number; width: number; height: number; clone(): Rect; applyTransform(m: unknown): Rect };
      type Displayable = {
        type: string;
        parent?: unknown;
        style?: { text?: string; opacity?: number };
        invisible?: boolean;
        getBoundingRect(): Rect;
        getComputedTransform(): unknown;
      };
      const chart = (
        el as unknown as {
          __echarts: { getWidth(): number; getHeight(): number; getZr(): { storage: { getDisplayList(update: boolean): Displayable[] } } };
        }
      ).__echarts;
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
        if (t.x < -1 || t.y < -1 || t.x + t.w > W + 1 || t.y + t.h > H + 1)
          problems.push(
            `${id}: "${t.text}" leaves the chart (${t.x.toFixed(0)},${t.y.toFixed(0)} ${t.w.toFixed(0)}×${t.h.toFixed(0)} in ${W}×${H})`,
          );
        if (t.text.endsWith('…')) problems.push(`${id}: "${t.text}" is cut`);
      }
      for (let i = 0; i < texts.length; i++)
        for (let j = i + 1; j < texts.length; j++) {
          const a = texts[i];
          const b = texts[j];
          if (a.parent && a.parent === b.parent) continue; // lines of one label
          const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
          const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
          if (ox > 2 && oy > 2)
            problems.push(
              `${id}: "${a.text}" overlaps "${b.text}" (${[a, b].map((t) => `${t.x.toFixed(0)},${t.y.toFixed(0)} ${t.w.toFixed(0)}×${t.h.toFixed(0)}`).join(' / ')} in ${W})`,
            );
        }
      if (texts.length < 2) problems.push(`${id}: only ${texts.length} text boxes found — the check cannot see the labels`);
      return problems;
    },
    testId,
  );
}

/** The colour each category's bar is drawn in, from the chart's option. */
async function barColours(page: Page, testId: string): Promise<Record<string, string>> {
  return page.$eval(`[data-testid="${testId}"]`, (el) => {
    const chart = (
      el as unknown as {
        __echarts: { getOption(): { xAxis: { data: string[] }[]; series: { type: string; data: { itemStyle?: { color?: string } }[] }[] } };
      }
    ).__echarts;
    const o = chart.getOption();
    const bar = o.series.find((s) => s.type === 'bar')!;
    return Object.fromEntries(o.xAxis[0].data.map((name, i) => [name.split('\n')[0], bar.data[i]?.itemStyle?.color ?? '']));
  });
}

/** A full-page screenshot: the content pane scrolls inside the shell, so let it grow first. */
async function shoot(page: Page, name: string) {
  // Nothing runs off the side of the window (the page scrolls down, never sideways).
  expect(
    await page.evaluate(
      () => Math.max(document.documentElement.scrollWidth, document.querySelector('.content')?.scrollWidth ?? 0) - window.innerWidth,
    ),
    `${name} is wider than the window`,
  ).toBeLessThanOrEqual(0);
  await page.addStyleTag({ content: 'html, body, #root, .shell { height: auto !important; } .content { overflow: visible !important; }' });
  await page.waitForTimeout(300); // charts follow their new size
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    `${name}: content wider than the window`,
  ).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(artifacts, `user-view-${name}.png`), fullPage: true });
  fs.copyFileSync(path.join(artifacts, `user-view-${name}.png`), path.join(shots, `user-view-${name}.png`));
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

    it("keeps a strategy's colour across two comparisons, with charts whose labels neither overlap nor clip", async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      expect(idsOf('superoffload').length).toBeGreaterThan(0);
      await compare(page, [...idsOf('superoffload'), ...idsOf('zero2-offload')]);
      const first = await barColours(page, 'chart-bars');
      // The step statistic agrees with the Runs list: Compare's step time for a strategy is the
      // median of its runs' medians of measured steps (two repeats: their mean).
      await page.locator('.metric-switch label', { hasText: 'Step time' }).locator('input').check();
      const super2 = runs.filter((r) => idsOf('superoffload').includes(r.id)).map((r) => r.stepSeconds!);
      const expected = super2.length === 2 ? (super2[0] + super2[1]) / 2 : super2.sort((a, b) => a - b)[Math.floor(super2.length / 2)];
      await expect
        .poll(async () => (await page.textContent('[data-testid="delta-table"] caption')) ?? '')
        .toMatch(/^Step time \(s\).*median of measured steps/);
      expect(await page.locator('[data-testid="delta-table"] tr', { hasText: 'SuperOffload' }).locator('td').nth(1).textContent()).toBe(
        expected.toFixed(3),
      );
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
        const o = (
          el as unknown as { __echarts: { getOption(): { series: { name: string; itemStyle?: { color?: string } }[] } } }
        ).__echarts.getOption();
        return o.series.map((s) => [s.name, s.itemStyle?.color ?? '']);
      });
      expect(lineColours.filter(([n]) => n.startsWith('SuperOffload')).every(([, c]) => c === first.SuperOffload)).toBe(true);
      for (const c of charts) expect(await labelProblems(page, c)).toEqual([]);
      await shoot(page, `compare-b-${width}`);
      await page.locator('.compare-grid').screenshot({ path: path.join(artifacts, `user-view-compare-charts-${width}.png`) });
      // A report takes the comparison's runs, its baseline first.
      await page.click('[data-testid="compare-report"]');
      await page.waitForSelector('[data-testid="reports-page"]');
      await expect
        .poll(async () => await page.textContent('[data-testid="reports-page"]'))
        .toContain(`Runs (${idsOf('superoffload').length + idsOf('gpu-zero2').length + idsOf('fsdp2-cpu-offload').length} selected)`);
      await page.close();
    });

    it('agrees on the baseline delta, the step statistic and host memory across Plan, Run, Runs, Compare, CLI and the downloaded report', async () => {
      const page = await browser.newPage({ viewport: { width, height }, acceptDownloads: true });
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const details = Object.fromEntries(
        await Promise.all(TUNED.map(async (id) => [id, await invoke<RunDetail>('runs/get', { id })] as const)),
      );
      const fsdp = details[FSDP];
      const predicted = (fsdp.spec as RunSpec).prediction!;
      expect(predicted.hostPeakBytes).toBeGreaterThan(0);
      const c = await invoke<Comparison>('compare/runs', { ids: TUNED });
      const base = c.groups.find((g) => g.isBaseline)!;
      expect(base.runIds.length).toBe(2); // a baseline of two repeats: its median is not either run's figure
      const pct = (x: number | null | undefined) => (x == null ? '—' : `${x >= 0 ? '+' : '-'}${Math.abs(x).toFixed(1)} %`);
      const unminus = (t: string | null) =>
        (t ?? '')
          .replace(/\u2212/g, '-')
          .replace(/±/g, '+')
          .trim();

      // Runs list: the step statistic (median of measured steps) of every run.
      await page.goto(serve.url + '#/runs');
      await page.waitForSelector('[data-testid="run-row"]');
      const listStep: Record<string, string> = {};
      for (const id of TUNED) {
        await page.fill('[data-testid="runs-search"]', id);
        listStep[id] = (await page.locator(`[data-run-id="${id}"] [role="gridcell"]`).last().textContent())!.trim();
        expect(listStep[id]).toBe(details[id].summary.stepSeconds!.toFixed(3));
      }

      // Run page: the same step figure, host memory measured beside predicted.
      await page.goto(serve.url + `#/runs/${encodeURIComponent(FSDP)}`);
      await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${FSDP}"]`);
      const figure = (label: string) =>
        page.locator('[data-testid="run-figures"] tbody tr', { hasText: label }).locator('td').allTextContents();
      const runStep = await figure('Step time');
      expect(runStep[0]).toContain('median of measured steps');
      expect(runStep[1]).toBe(listStep[FSDP]);
      const runHost = await figure('Host memory peak');
      expect(runHost.slice(1, 3)).toEqual([formatBytes(fsdp.summary.peakHostBytes), formatBytes(predicted.hostPeakBytes)]);
      await shoot(page, `numbers-run-${width}`);

      // Plan: the same workload on the loaded H200 predicts the host memory the run was planned with
      // (one figure per plan: the table's is the spec's prediction).
      await page.goto(serve.url + '#/plan');
      await page.waitForSelector('[data-testid="machine-file"]');
      await page.setInputFiles('[data-testid="machine-file"]', H200);
      await expect.poll(async () => await page.textContent('[data-testid="machine-summary"]')).toMatch(/1 × NVIDIA H200/);
      await page.selectOption('[data-testid="model-select"]', 'llama-3.2-3b');
      await page.fill('[data-testid="seq-len"]', String(fsdp.spec && (fsdp.spec as RunSpec).seqLen));
      await page.click('[data-testid="compute-plan"]');
      await page.waitForSelector('[data-testid="plan-result"]');
      expect((await page.textContent('[data-testid="strategy-fsdp2-cpu-offload"] [data-testid="strategy-host"]'))?.trim()).toBe(
        formatBytes(predicted.hostPeakBytes),
      );

      // Compare: the groups' medians and deltas against the baseline group's median of repeats.
      await compare(page, TUNED);
      expect(await page.locator('[data-testid="delta-table"] tbody tr.baseline').textContent()).toContain(base.label);
      const deltaCells = async () =>
        page.$$eval('[data-testid="delta-table"] tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 3).map((td) => td.textContent ?? '')),
        );
      const tflopsCells = await deltaCells();
      c.groups.forEach((g, i) => {
        expect(tflopsCells[i][0]).toBe(
          g.stats.tflopsPerGpu!.median.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
        );
        expect(unminus(tflopsCells[i][1])).toBe(g.isBaseline ? '—' : pct(g.deltaPct.tflopsPerGpu));
      });
      await page.locator('.metric-switch label', { hasText: 'Step time' }).locator('input').check();
      await expect.poll(async () => (await page.textContent('[data-testid="delta-table"] caption')) ?? '').toMatch(/^Step time/);
      const stepCells = await deltaCells();
      c.groups.forEach((g, i) => expect(stepCells[i][0]).toBe(g.stats.stepSeconds!.median.toFixed(3)));
      const fsdpGroup = c.groups.findIndex((g) => g.runIds.includes(FSDP));
      expect(stepCells[fsdpGroup][0]).toBe(listStep[FSDP]); // one run: its group's median is its own
      await page.locator('.metric-switch label', { hasText: 'Model TFLOPS per GPU' }).locator('input').check();
      // Host memory in the memory chart: the FSDP2 group's bar is the run's measured peak.
      const hostBar = await page.$eval(
        '[data-testid="chart-memory"]',
        (el, index) => {
          const o = (
            el as unknown as {
              __echarts: {
                getOption(): {
                  series: { name: string; xAxisIndex?: number; data: { value: number | null }[] }[];
                  xAxis: { name?: string }[];
                };
              };
            }
          ).__echarts.getOption();
          const i = o.series.findIndex((x) => /host/i.test(x.name));
          return { value: o.series[i].data[index].value, unit: o.xAxis[o.series[i].xAxisIndex ?? i]?.name ?? '' };
        },
        fsdpGroup,
      );
      const div = /TiB/.test(hostBar.unit) ? 2 ** 40 : /GiB/.test(hostBar.unit) ? 2 ** 30 : 2 ** 20;
      expect(hostBar.value).toBe(Number((fsdp.summary.peakHostBytes! / div).toPrecision(4)));
      // Config differences with FSDP2 in the set: DeepSpeed keys compared among the DeepSpeed groups only.
      expect(await page.textContent('[data-testid="config-diff-deepspeed"] [data-testid="config-diff-na"]')).toContain('FSDP2');
      expect(await page.locator('[data-testid="config-diff-deepspeed"] tbody tr').count()).toBeLessThan(15);
      expect(await page.textContent('[data-testid="config-diff-deepspeed"]')).not.toContain('bf16.enabled');
      expect(
        await page.$eval(
          '[data-testid="config-diff"]',
          (el) => el.getBoundingClientRect().width / (el.parentElement!.getBoundingClientRect().width || 1),
        ),
      ).toBeGreaterThan(0.95);
      await shoot(page, `numbers-compare-${width}`);
      await page.goto(serve.url + '#/compare');
      await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 30_000 });

      // CLI compare, the same baseline: the same deltas.
      const cliC = JSON.parse(
        cli(['compare', ...TUNED, '--baseline', base.runIds[0], '--json', '--data-dir', serve.dataDir]),
      ) as Comparison;
      expect(cliC.groups.map((g) => [g.label, g.isBaseline, pct(g.deltaPct.tflopsPerGpu)])).toEqual(
        c.groups.map((g) => [g.label, g.isBaseline, pct(g.deltaPct.tflopsPerGpu)]),
      );

      // The report: Compare's download button puts the HTML into this browser's downloads …
      const [fromCompare] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="compare-download"]')]);
      expect(fromCompare.suggestedFilename()).toMatch(/^offload-studio-report-.*\.html$/);
      const compareHtml = fs.readFileSync((await fromCompare.path())!, 'utf8');
      expect(compareHtml.match(/data-testid="headline">([^<]*)</)![1].startsWith(c.headline!)).toBe(true);
      // … and the Reports page (the comparison's runs, the baseline group first) downloads HTML, CSV and PDF.
      await page.click('[data-testid="compare-report"]');
      await page.waitForSelector('[data-testid="report-download"]');
      const download = async (format: 'html' | 'csv' | 'pdf') => {
        await page.check(`input[name="report-format"][value="${format}"]`);
        const [d] = await Promise.all([page.waitForEvent('download', { timeout: 90_000 }), page.click('[data-testid="report-download"]')]);
        expect(d.suggestedFilename().endsWith(`.${format}`)).toBe(true);
        await page.waitForSelector('[data-testid="report-downloaded"]');
        const file = path.join(shots, `report-${width}.${format}`);
        await d.saveAs(file);
        return file;
      };
      await shoot(page, `numbers-reports-${width}`);
      const htmlFile = await download('html');
      const csvFile = await download('csv');
      const pdfFile = width === 1280 ? await download('pdf') : null;

      // The HTML report, opened in the browser at this size: the same numbers, laid out to read.
      const report = await browser.newPage({ viewport: { width, height } });
      await report.goto('file://' + htmlFile);
      expect(await report.textContent('[data-testid="baseline"]')).toBe(`${base.label}, median of 2 repeats`);
      const headline = (await report.textContent('[data-testid="headline"]'))!;
      expect(headline.startsWith(c.headline!)).toBe(true);
      const bodyText = (await report.textContent('body'))!;
      expect(bodyText.split(c.headline!).length - 1).toBe(1); // the headline once
      expect(await report.textContent('section.system')).toContain('H200');
      // Summary table: each group's Δ is Compare's.
      const summary = await report.$$eval('section.summary tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
      c.groups.forEach((g, i) => {
        expect(summary[i][0]).toContain(g.label);
        expect(unminus(summary[i][8])).toBe(g.isBaseline ? '—' : pct(g.deltaPct.tflopsPerGpu));
      });
      // Run table: every run's Δ against the baseline group's median, its step statistic, host memory measured (predicted).
      const cells = async (id: string) =>
        report.$$eval(`table.runs tr[data-run-id="${id}"] td`, (tds) =>
          Object.fromEntries(tds.map((td, i) => [td.getAttribute('data-col') ?? String(i), td.textContent ?? ''])),
        );
      const runDelta: Record<string, string> = {};
      for (const id of TUNED) {
        const row = await cells(id);
        const d = ((details[id].summary.tflopsPerGpu! - base.stats.tflopsPerGpu!.median) / base.stats.tflopsPerGpu!.median) * 100;
        runDelta[id] = pct(d);
        expect(unminus(row.delta)).toBe(runDelta[id]);
        expect(row.step.split(' ')[0]).toBe(listStep[id]);
      }
      expect((await cells(FSDP)).host).toBe(`${runHost[1]} (${runHost[2]})`);
      // Laid out to read: nothing scrolls sideways, run ids break at their hyphens (a few lines), not every few characters.
      expect(await report.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      const idLines = await report.$$eval('table.runs code', (codes) => codes.map((c) => c.getClientRects().length));
      expect(Math.max(...idLines)).toBeLessThanOrEqual(3);
      expect(await report.$$eval('section.appendix .config-block', (b) => b.length)).toBeLessThan(TUNED.length); // repeats share one config
      await report.screenshot({ path: path.join(shots, `user-view-report-${width}.png`), fullPage: true });
      await report.close();

      // CSV: the same baseline and deltas, the step statistic, host memory measured and predicted.
      const rows = parseCsv(fs.readFileSync(csvFile, 'utf8'));
      const col = (name: string) => rows[0].indexOf(name);
      for (const id of TUNED) {
        const row = rows.find((r) => r[col('id')] === id)!;
        expect(row[col('baseline_group')]).toBe(base.label);
        expect(pct(Number(row[col('delta_tflops_per_gpu_pct')]))).toBe(runDelta[id]);
        expect(Number(row[col('step_seconds_median')]).toFixed(3)).toBe(listStep[id]);
      }
      const fsdpRow = rows.find((r) => r[col('id')] === FSDP)!;
      expect([Number(fsdpRow[col('peak_host_bytes')]), Number(fsdpRow[col('predicted_host_peak_bytes')])]).toEqual([
        fsdp.summary.peakHostBytes,
        predicted.hostPeakBytes,
      ]);

      // PDF (once): the headline, the groups' deltas and the runs' deltas as printed.
      if (pdfFile) {
        expect(fs.readFileSync(pdfFile).subarray(0, 5).toString()).toBe('%PDF-');
        const text = spawnSync('pdftotext', [pdfFile, '-'], { encoding: 'utf8' });
        if (!text.error) {
          const t = unminus(text.stdout.replace(/\s+/g, ' '));
          expect(t).toContain(c.headline!);
          for (const g of c.groups.filter((x) => !x.isBaseline)) expect(t).toContain(pct(g.deltaPct.tflopsPerGpu));
          for (const id of TUNED) expect(t).toContain(runDelta[id]);
          const pages = spawnSync('pdfinfo', [pdfFile], { encoding: 'utf8' }).stdout.match(/Pages:\s+(\d+)/)?.[1];
          console.log(`user view: PDF of ${TUNED.length} runs: ${pages} page(s)`);
          // Figures first, each distinct config once in the appendix, then the launch lines for the
          // user's own training (one block per GPU × node shape): a few pages, not a config dump.
          expect(Number(pages)).toBeLessThanOrEqual(6);
        }
      }
      expect(errors).toEqual([]);
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
      await expect
        .poll(async () =>
          (await page.$$eval('[data-testid="machine-select"] option', (os) => os.map((o) => o.textContent ?? ''))).join('\n'),
        )
        .toMatch(/This machine[\s\S]*h200-sxm-x86 · 1 × NVIDIA H200 \(seen in history\)[\s\S]*\(catalogue\)/);
      await page.setInputFiles('[data-testid="machine-file"]', H200);
      await expect.poll(async () => await page.textContent('[data-testid="machine-summary"]')).toMatch(/1 × NVIDIA H200/);
      await page.selectOption('[data-testid="model-select"]', 'llama-3.1-8b');
      await page.click('[data-testid="compute-plan"]');
      await page.waitForSelector('[data-testid="plan-result"]');
      expect(await page.textContent('[data-testid="recommendation"]')).toContain('h200-sxm-x86');
      const rows = await page.$$eval('[data-testid="strategy-table"] tbody tr[data-testid^="strategy-"]', (trs) =>
        trs.map((tr) => ({
          fits: tr.getAttribute('data-verdict') === 'fits',
          verdict: tr.getAttribute('data-verdict'),
          badge: tr.querySelector('[data-testid="strategy-verdict"]')!.textContent,
          step: tr.querySelector('[data-testid="strategy-step"]')!.textContent,
          tflops: tr.querySelector('[data-testid="strategy-tflops"]')!.textContent,
        })),
      );
      expect(rows.some((r) => !r.fits)).toBe(true);
      expect(rows.some((r) => r.fits)).toBe(true);
      for (const r of rows.filter((x) => !x.fits)) expect([r.step, r.tflops]).toEqual(['—', '—']);
      for (const r of rows.filter((x) => x.fits)) expect(r.tflops).not.toBe('—');
      // Three verdicts, the CLI's words: an edge row is "at the edge", never "needs more GPU memory".
      for (const r of rows) if (r.verdict !== 'does-not-fit') expect(r.badge).toBe(r.verdict === 'fits' ? 'fits' : 'at the edge');
      // No bar for a strategy that does not fit (the category says so instead).
      await waitForChart(page, 'chart-predicted-tflops');
      const bars = await page.$eval('[data-testid="chart-predicted-tflops"]', (el) => {
        const o = (
          el as unknown as { __echarts: { getOption(): { series: { data: { value: number | null }[] }[] } } }
        ).__echarts.getOption();
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
