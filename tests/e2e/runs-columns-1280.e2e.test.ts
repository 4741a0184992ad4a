// The Runs page at 1280×800 (a laptop-sized window), in Chromium against `serve`: the strategy's
// display name shows whole, the longest one with its repeat mark ("ZeRO-3 param offload #3"), and
// so does the machine's name (its hostname; the GPUs after it give way), the Sweep column no
// wider than the sweep id's end it shows.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { writeRunsFile } from '../../electron/services/history';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { openTempStore, seedRun, tempDir } from '../unit/reports/fixtures';

const STRATEGIES = ['zero3-offload-param', 'fsdp2-cpu-offload', 'zero3-offload', 'superoffload'];
let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  // Three repeats of each strategy, on a GH200 host (the machine snapshot names it), in one sweep.
  const { store } = openTempStore();
  for (const strategy of STRATEGIES)
    for (let k = 0; k < 3; k++)
      seedRun(store, {
        id: `${strategy}-${k}`,
        strategy,
        stepSeconds: 20 + k,
        repeatIndex: k,
        sweepId: 'sw-20261203-101502-a1b2c3',
        tags: k === 0 ? ['first'] : [],
      });
  const fixture = path.join(tempDir(), 'columns.runs.json');
  writeRunsFile(fixture, store.exportRuns());
  store.close();
  const dataDir = tempDir('offload-runs-columns-');
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain(`imported ${STRATEGIES.length * 3} run(s)`);
  serve = await startServe([], dataDir);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('Runs columns at 1280×800', () => {
  it('shows every strategy name and machine name whole', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-app-state="loaded"]');
    // The machine's name comes with its snapshot (one runs/get per machine): wait for it.
    await page.waitForSelector('[data-testid="run-row"][data-run-id="zero3-offload-param-2"] [title^="gh200-node1"]');
    const cells = await page.$$eval('[data-testid="run-row"]', (rows) =>
      rows.map((r) => {
        const name = r.querySelector<HTMLElement>('.strategy-name')!;
        const mark = r.querySelector<HTMLElement>('[data-testid="repeat-mark"]');
        const strategyCell = name.closest<HTMLElement>('[role="gridcell"]')!;
        const machineCell = r.querySelector<HTMLElement>('[role="gridcell"][title^="gh200-node1"]')!;
        const host = machineCell.querySelector<HTMLElement>('.machine-host') ?? machineCell;
        const right = (e: HTMLElement) => e.getBoundingClientRect().right;
        return {
          id: r.getAttribute('data-run-id'),
          strategy: name.textContent,
          strategyClipped: name.scrollWidth > name.clientWidth || strategyCell.scrollWidth > strategyCell.clientWidth,
          markInside: !mark || right(mark) <= right(strategyCell) + 0.5,
          host: host.textContent,
          hostInside: right(host) <= right(machineCell) + 0.5 && host.scrollWidth <= host.clientWidth,
        };
      }),
    );
    expect(cells).toHaveLength(STRATEGIES.length * 3);
    expect(cells.find((c) => c.id === 'zero3-offload-param-2')?.strategy).toBe('ZeRO-3 param offload');
    for (const c of cells) {
      expect(c.strategyClipped, `${c.id}: ${c.strategy}`).toBe(false);
      expect(c.markInside, c.id!).toBe(true);
    }
    for (const c of cells) {
      expect(c.host).toBe('gh200-node1');
      expect(c.hostInside, c.id!).toBe(true);
    }
    // The table itself fits the page: nothing pushed sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    fs.mkdirSync(path.join(repoRoot, 'test-results', 'e2e'), { recursive: true });
    await page.screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'runs-columns-1280x800.png') });
    await page.close();
  });

  // Issue 49.8: the model ("llam…") and the Tags header ("T…") were cut at 1280, and the right-aligned
  // duration ran into the machine's name ("24s vm") at both sizes.
  for (const [width, height] of [
    [1280, 800],
    [1920, 1080],
  ])
    it(`shows the model, the tags and the duration apart from the machine at ${width}×${height}`, async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      await page.goto(serve.url + '#/runs');
      await page.waitForSelector('[data-testid="run-row"] .machine-host');
      const found = await page.$$eval('[data-testid="run-row"], .runs-head', (rows) =>
        rows.map((r) => {
          const cells = [...r.querySelectorAll<HTMLElement>(':scope > [role="gridcell"], :scope > [role="columnheader"]')];
          const visible = cells.filter((c) => getComputedStyle(c).display !== 'none');
          const duration = r.querySelector<HTMLElement>('.col-duration')!;
          const machine = visible[visible.indexOf(duration) + 1];
          const text = (c: HTMLElement) => {
            const range = document.createRange();
            range.selectNodeContents(c);
            return range.getBoundingClientRect();
          };
          return {
            // the last cell ends inside the row (once Step s was cut at the card's edge)
            inside: visible.at(-1)!.getBoundingClientRect().right <= r.getBoundingClientRect().right + 0.5,
            texts: visible.map((c) => c.textContent ?? ''),
            clipped: visible.map((c) => c.scrollWidth > c.clientWidth + 0.5),
            widths: visible.map((c) => `${c.scrollWidth}/${c.clientWidth}`),
            gap: text(machine).left - text(duration).right,
          };
        }),
      );
      const [head, ...rows] = found;
      const column = (name: string) => head.texts.findIndex((t) => t.toLowerCase().startsWith(name));
      for (const name of ['model', 'tags', 'duration', 'machine', 'sweep'])
        expect(head.clipped[column(name)], `${name} header at ${width}: ${head.widths.join(' ')} ${head.texts.join('|')}`).toBe(false);
      for (const r of rows) {
        expect(r.texts[column('model')]).toBe('llama-3.3-70b');
        expect(r.clipped[column('model')], `model at ${width}`).toBe(false);
        expect(r.clipped[column('tags')], `tags at ${width}`).toBe(false);
        expect(r.gap, `duration to machine at ${width}`).toBeGreaterThanOrEqual(8);
        expect(r.inside, `last column inside the row at ${width}`).toBe(true);
      }
      expect(head.gap).toBeGreaterThanOrEqual(8);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      await page.screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', `runs-columns-${width}x${height}.png`) });
      await page.close();
    });

  // A walk at both sizes: the status badge touched the model ("completedtiny-llama"), right-aligned headers
  // touched the column before ("TAGS TFLOPS/GPU", "TFLOPS/GPU TOKENS/S"), and the hostname its GPUs ("vm· no GPU").
  for (const [width, height] of [
    [1280, 800],
    [1920, 1080],
  ])
    it(`keeps every cell's words apart from its neighbour's at ${width}×${height}`, async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      await page.goto(serve.url + '#/runs');
      await page.waitForSelector('[data-testid="run-row"] .machine-host');
      const rows = await page.$$eval('[data-testid="run-row"], .runs-head', (rows) =>
        rows.map((r) => {
          const cells = [...r.querySelectorAll<HTMLElement>(':scope > [role="gridcell"], :scope > [role="columnheader"]')].filter(
            (c) => getComputedStyle(c).display !== 'none',
          );
          const box = (e: Element) => {
            const range = document.createRange();
            range.selectNodeContents(e);
            return range.getBoundingClientRect();
          };
          // a cell's words (and a status badge around them): the strategy's colour swatch is not words
          const words = (c: Element) => {
            const parts: DOMRect[] = [...c.querySelectorAll('.badge')].map((b) => b.getBoundingClientRect());
            const walker = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
            for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.trim()) parts.push(box(n as Element));
            const left = Math.min(...parts.map((p) => p.left));
            const right = Math.max(...parts.map((p) => p.right));
            return { left, right, width: parts.length ? right - left : 0 };
          };
          const gaps: string[] = [];
          // from the date on (the checkbox has no words)
          for (let i = 1; i + 1 < cells.length; i++) {
            // the words as drawn: what overflows a cell (an ellipsis) is cut at its content's edge
            const seen = (c: HTMLElement) => {
              const [t, e] = [words(c), c.getBoundingClientRect()];
              const pad = parseFloat(getComputedStyle(c).paddingRight) || 0;
              return { left: Math.max(t.left, e.left), right: Math.min(t.right, e.right - pad), width: t.width };
            };
            const [a, b] = [seen(cells[i]), seen(cells[i + 1])];
            if (a.width === 0 || b.width === 0) continue;
            if (b.left - a.right < 5)
              gaps.push(`${cells[i].textContent} | ${cells[i + 1].textContent}: ${(b.left - a.right).toFixed(1)} px`);
          }
          // the "·" after the hostname, where it is drawn
          const host = r.querySelector('.machine-host');
          const text = r.querySelector('.machine-gpus')?.firstChild;
          let hostToGpus: number | null = null;
          if (host && text?.textContent?.includes('·')) {
            const dot = document.createRange();
            dot.setStart(text, text.textContent.indexOf('·'));
            dot.setEnd(text, text.textContent.indexOf('·') + 1);
            hostToGpus = dot.getBoundingClientRect().left - box(host).right;
          }
          return { gaps, hostToGpus };
        }),
      );
      for (const r of rows) {
        expect(r.gaps, `at ${width}`).toEqual([]);
        // " · 4× GH200" keeps its leading space: the dot is not glued to the hostname
        if (r.hostToGpus !== null) expect(r.hostToGpus, `hostname to its GPUs at ${width}`).toBeGreaterThanOrEqual(2);
      }
      await page.close();
    });
});
