// Golden-structure tests of the HTML report, built from a real seeded history store.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import { openTempStore, perSampleTflop, seedComparison, seedRun, tempDir, XSS } from './fixtures';

let store: HistoryStore;
let ids: string[];
let html: string;
const out = tempDir();

beforeAll(async () => {
  store = openTempStore().store;
  ids = seedComparison(store);
  seedRun(store, { id: 'xss-run', strategy: 'superoffload', stepSeconds: 21, tags: [XSS, 'ok-tag'], notes: `note ${XSS} & "quotes"` });
  ids.push('xss-run');
  const reports = createReports({
    getRun: (id) => store.getRun(id, 0),
    compare: (i, b) => store.compare(i, b),
    appVersion: '9.9.9',
    now: () => new Date('2026-12-01T12:00:00Z'),
  });
  const res = await reports.export({ runIds: ids, format: 'html', path: path.join(out, 'report.html') });
  html = fs.readFileSync(res.path, 'utf8');
  expect(res.bytes).toBe(Buffer.byteLength(html));
});
afterAll(() => store?.close());

describe('HTML report', () => {
  it('is one self-contained file: no script, no external reference, a strict CSP', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\s(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*['"]?https?:/i);
    expect(html).not.toMatch(/@import/i);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );
    expect(html).not.toMatch(/<[^>]*\son[a-z]+\s*=/i); // no event handler attribute in any tag
  });

  it('embeds the charts as inline SVG', () => {
    const svgs = html.match(/<svg[\s>]/g) ?? [];
    expect(svgs.length).toBeGreaterThanOrEqual(3);
    expect(html).toMatch(/<figcaption>Model TFLOPS per GPU by strategy/);
    expect(html).toMatch(/<figcaption>Step time over the measured steps/);
  });

  it('escapes user strings: a tag that is markup shows as text', () => {
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('note &lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;');
  });

  it('says the headline, with the measured speed-up', () => {
    const headline = html.match(/data-testid="headline">([^<]*)</)![1];
    expect(headline).toMatch(/SuperOffload/);
    expect(headline).toMatch(/ZeRO-Offload/);
    expect(headline).toMatch(/\d\.\d+×/);
  });

  it("prints one headline, the history's comparison of the same runs (one engine, one grouping)", () => {
    const comparison = store.compare(ids);
    expect(html.match(/class="headline"/g)).toHaveLength(1);
    expect(comparison.headline).toBeTruthy();
    expect(html.match(/data-testid="headline">([^<]*)</)![1].startsWith(comparison.headline!)).toBe(true);
    // The summary table is the comparison's groups, in its order, with its speed-ups.
    for (const g of comparison.groups.filter((x) => !x.isBaseline && x.speedup != null))
      expect(html).toContain(`${g.speedup!.toFixed(2)}×`);
  });

  it('shows the figures with spread, the deltas, the formula and the convention', () => {
    const run = store.getRun('so-0', 0)!;
    const measured = run.samples
      .filter((s) => !s.warmup)
      .map((s) => s.tflopsPerGpu!)
      .sort((a, b) => a - b);
    const median = (measured[4] + measured[5]) / 2;
    const f = (x: number) => x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    expect(html).toContain(`${f(median)} (${f(measured[0])}–${f(measured[measured.length - 1])})`);
    expect(html).toContain('(2·c·N·s + 4·c·L·h·s²) / 1e12');
    expect(html).toContain('c = 4 counts recomputation, so it is not MFU');
    expect(html).toMatch(/aggregate ÷ number of GPUs/);
    expect(html).toContain(
      `${perSampleTflop().toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} TFLOP per sample`,
    );
    expect(html).toContain('(baseline)');
    expect(html).toMatch(/\+\d+\.\d %/); // SuperOffload's TFLOPS delta vs the ZeRO-Offload baseline
  });

  it('includes the system snapshot, versions, configs and the date', () => {
    expect(html).toContain('gh200-node1');
    expect(html).toContain('NVIDIA GH200 480GB');
    expect(html).toContain('570.86.15'); // driver
    expect(html).toContain('2.9.1+cu128'); // torch
    expect(html).toContain('0.19.8'); // DeepSpeed
    expect(html).toContain('&quot;super_offload&quot;: true'); // pretty-printed ds_config.json
    expect(html).toContain('"cpuadam_cores_perc": 0.9'.replace(/"/g, '&quot;'));
    expect(html).toContain('Generated <time datetime="2026-12-01T12:00:00.000Z">1 Dec 2026, 12:00 UTC</time>'); // human-readable, not a raw ISO stamp
    expect(html.match(/\d{4}-\d\d-\d\dT\d\d:\d\d/g)).toHaveLength(1);
    expect(html).toMatch(/<section class="major system"><h2>System<\/h2>/);
  });

  it("measures every delta against one baseline: the comparison's baseline group's median of repeats", () => {
    const comparison = store.compare(ids, 'zo-0');
    const base = comparison.groups.find((g) => g.isBaseline)!;
    expect(base.runIds.length).toBeGreaterThan(1);
    const baseMedian = base.stats.tflopsPerGpu!.median;
    expect(html).toContain(`baseline: <span data-testid="baseline">${base.label}, median of ${base.runIds.length} repeats</span>`);
    for (const id of ['zo-0', 'zo-1', 'so-0']) {
      const run = store.getRun(id, 0)!;
      const delta = ((run.summary.tflopsPerGpu! - baseMedian) / baseMedian) * 100;
      const cell = html.match(new RegExp(`data-run-id="${id}"[\\s\\S]*?data-col="delta">([^<]*)<`))![1];
      expect(cell).toBe(`${delta > 0.05 ? '+' : delta < -0.05 ? '−' : '±'}${Math.abs(delta).toFixed(1)} %`);
    }
    // The summary's delta for SuperOffload is the same definition (group median vs group median).
    const so = comparison.groups.find((g) => g.strategy === 'superoffload')!;
    expect(html).toContain(`${so.deltaPct.tflopsPerGpu! > 0 ? '+' : '−'}${Math.abs(so.deltaPct.tflopsPerGpu!).toFixed(1)} %`);
  });

  it('keeps the run ids whole in a table that fits, and each distinct config once in an appendix', () => {
    expect(html).toMatch(/table\.runs code \{ word-break: normal; overflow-wrap: normal/);
    expect(html).not.toMatch(/word-break: break-all/);
    const appendix = html.slice(html.indexOf('<section class="appendix configs">'));
    expect(appendix).toContain('Appendix: configurations');
    // Three ZeRO-Offload repeats share one config, the SuperOffload runs another (xss-run's too).
    expect(appendix.match(/<div class="config-block">/g)).toHaveLength(2);
    expect(appendix).toContain('Runs: zo-0, zo-1, zo-2');
    // Configs only in the appendix, never per run in the body.
    expect(html.slice(0, html.indexOf('<section class="appendix configs">'))).not.toContain('<pre>');
  });

  it('refuses an unknown run id by name', async () => {
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
    await expect(reports.export({ runIds: ['so-0', 'nope'], format: 'html', path: path.join(out, 'x.html') })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(fs.existsSync(path.join(out, 'x.html'))).toBe(false);
  });
});
