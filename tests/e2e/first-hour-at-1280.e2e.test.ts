// A new user's first hour on a fresh clone, seen in its 1280×800 screenshots (Chromium against `serve`):
//  - the Plan table's verdict pill ("needs a GPU") broke over two lines, half a pill on each;
//  - the Engine step's "Create environment" button sat flush on the Re-check / Continue row (or on
//    the interpreter table, when nothing is ready), as if one group of buttons;
//  - a CPU run's page read 'GPU memory peak — | 2.3 GiB' and 'Host memory peak 1016.5 MiB | 5.8 GiB |
//    −83.0 %': the plan's figure for a GPU the run never had, and the pre-flight's upper bound (the GPU
//    side counted in host memory too) read as a prediction 83 % off. The run here is a real child
//    process (the fake runner behind the interpreter chosen in Setup) from the Plan page's specs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  const dataDir = tempDir('offload-first-hour-1280-');
  fs.writeFileSync(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({ pythonPath: path.join(repoRoot, 'tests/reliability/fixtures/fake-python') }),
  );
  serve = await startServe([], dataDir, { env: { FAKE_RUNNER_DELAY: '0.05' } });
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

describe("the first hour at 1280×800: the Plan table's pills, the Engine step, a CPU run's page", () => {
  it("the Plan table's verdict pills are one line each", async () => {
    const page = await open('#/plan');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '64');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="strategy-table"] .badge', { timeout: 60_000 });
    const pills = await page.$$eval('[data-testid="strategy-table"] .badge', (els) =>
      els.map((el) => ({
        text: el.textContent,
        lines: el.getClientRects().length,
        height: el.getBoundingClientRect().height,
        line: parseFloat(getComputedStyle(el).lineHeight) || 18,
      })),
    );
    expect(pills.length).toBeGreaterThan(5);
    for (const p of pills) {
      expect(p.lines, JSON.stringify(p)).toBe(1);
      expect(p.height, JSON.stringify(p)).toBeLessThan(p.line * 1.6);
    }
    await page.close();
  }, 120_000);

  it("the Plan table's memory figures keep their unit on their line ('2.0 GiB', not '2.0' over 'GiB')", async () => {
    const page = await open('#/plan');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '512');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="strategy-table"] [data-testid="strategy-host"]', { timeout: 60_000 });
    const cells = await page.$$eval(
      '[data-testid="strategy-table"] [data-testid="strategy-host"], [data-testid="strategy-table"] [data-testid="strategy-gpu"]',
      (tds) =>
        tds.map((td) => {
          const range = document.createRange();
          range.selectNodeContents(td);
          // one line box per line the figure takes
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          return { text: td.textContent, lines: tops.size };
        }),
    );
    expect(cells.length).toBeGreaterThan(5);
    for (const c of cells) expect(c.lines, JSON.stringify(c)).toBe(1);
    await page.close();
  }, 120_000);

  it("the Engine step's Create environment stands apart from what follows it", async () => {
    const page = await open('#/setup');
    await page.click('[data-testid="wizard-next"]'); // Welcome → Hardware
    await page.waitForSelector('[data-testid="cpu-model"]');
    await page.click('[data-testid="wizard-next"]'); // → Engine
    await page.waitForSelector('[data-testid="create-environment"] button', { timeout: 120_000 });
    await page.waitForSelector('[data-testid="interpreters"]', { timeout: 120_000 });
    const gap = await page.$eval('[data-testid="create-environment"]', (block) => {
      const button = [...block.querySelectorAll('button')].find((b) => b.textContent?.includes('Create environment'))!;
      const next = block.nextElementSibling!;
      return { gap: next.getBoundingClientRect().top - button.getBoundingClientRect().bottom, next: next.outerHTML.slice(0, 80) };
    });
    expect(gap.gap, gap.next).toBeGreaterThanOrEqual(8);
    await page.close();
  }, 180_000);

  it("a CPU run's page reads no GPU prediction and no memory error into it", async () => {
    const page = await open('#/plan');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '32');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
    for (const id of ['zero2-offload', 'zero3-offload-param']) {
      const box = page.locator(`[data-testid="strategy-${id}"] input[type="checkbox"]`);
      if (await box.isChecked()) await box.click();
    }
    await page.fill('[data-testid="run-steps"]', '3');
    await page.fill('[data-testid="run-warmup"]', '1');
    await page.fill('[data-testid="run-repeats"]', '1');
    await page.click('[data-testid="start-sweep"]');
    await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 120_000 });
    const id = await page.getAttribute('[data-testid="sweep-run"]', 'data-run-id');
    await page.goto(`${serve.url}#/runs/${id}`);
    await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${id}"]`);
    const figures = await page.$$eval('[data-testid="run-figures"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    const gpu = figures.find((r) => r[0] === 'GPU memory peak')!;
    const host = figures.find((r) => r[0] === 'Host memory peak')!;
    expect(gpu[2]).toContain('no prediction (CPU run)');
    expect(host[2]).toMatch(/^[\d.]+ GiB pre-flight size, not a prediction$/);
    for (const row of figures) expect(row[3], row.join(' | ')).toBe('');
    // The table stays inside its card, its labels on at most two lines (issue 49.8: it spilled out and
    // "Step time (s, median of measured steps)" wrapped over five).
    const fit = await page.$eval('[data-testid="run-figures"]', (card) => {
      const table = card.querySelector('table')!;
      const label = card.querySelector<HTMLElement>('tbody tr td')!;
      const range = document.createRange();
      range.selectNodeContents(label);
      return {
        spill: table.getBoundingClientRect().right - card.getBoundingClientRect().right,
        lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size,
      };
    });
    await page.screenshot({ path: path.join(repoRoot, 'test-results', 'e2e', 'first-hour-1280-run-page.png'), fullPage: true });
    expect(fit.spill).toBeLessThanOrEqual(0);
    expect(fit.lines).toBeLessThanOrEqual(2);
    await page.close();
  }, 180_000);
});
