// In a real Chromium against a real `serve`: an imported run whose strategy name is markup
// (a fixed-position element that covered the page) is shown as text in the Compare page's tooltips —
// predicted vs measured and the memory panels — never rendered as HTML.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { startServe, type ServeHandle } from '../helpers/serve';
import { storeWith, tmpDir } from '../unit/history-queries/helpers';
import { writeRunsFile } from '../../electron/services/history';

const HOSTILE = '<div id="pwn" style="position:fixed;inset:0;background:red">covered</div>';
let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  const source = storeWith([
    { id: 'evil-r1', strategy: HOSTILE, tflops: 120, predicted: 110, repeatIndex: 0, steps: 10 },
    { id: 'zero-r1', strategy: 'zero3-offload', tflops: 101, predicted: 112, repeatIndex: 0, steps: 10 },
  ]);
  const fixture = path.join(tmpDir(), 'hostile.runs.json');
  writeRunsFile(fixture, source.exportRuns());
  source.close();
  const dataDir = tmpDir();
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 2 run(s)');
  serve = await startServe([], dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** Moves the mouse over a chart on a grid until echarts shows a tooltip naming the hostile run; its HTML. */
async function hoverUntilTooltip(page: Page, testId: string): Promise<string | null> {
  const box = await page.locator(`[data-testid="${testId}"]`).boundingBox();
  if (!box) return null;
  // symbols are 10 px: a 6 px grid over the plot area meets each
  for (let y = 0.05; y < 0.95; y += 6 / box.height)
    for (let x = 0.05; x < 0.98; x += 6 / box.width) {
      await page.mouse.move(box.x + box.width * x, box.y + box.height * y);
      const html = await page.evaluate(() => {
        const tips = [...document.querySelectorAll('div')].filter(
          (d) => getComputedStyle(d).zIndex === '9999999' && d.style.display !== 'none' && d.textContent?.includes('covered'),
        );
        return tips[0]?.innerHTML ?? null;
      });
      if (html) return html;
      if (await page.locator('#pwn').count()) return 'RENDERED';
    }
  return null;
}

describe('hostile strategy names in Compare tooltips', () => {
  it(
    'predicted vs measured and memory tooltips show the name as text; no element of it enters the page',
    { timeout: 120_000 },
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(serve.url + '#/runs');
      await page.waitForSelector('[data-testid="run-row"]');
      await page.check('[data-run-id="evil-r1"] input[type="checkbox"]');
      await page.check('[data-run-id="zero-r1"] input[type="checkbox"]');
      await page.click('[data-testid="compare-selected"]');
      await page.waitForSelector('[data-testid="compare-page"][data-render-ms]');
      for (const chart of ['chart-predicted', 'chart-memory']) {
        await page.locator(`[data-testid="${chart}"]`).scrollIntoViewIfNeeded();
        const html = await hoverUntilTooltip(page, chart);
        expect(html, `${chart}: a tooltip naming the run`).not.toBeNull();
        expect(html, `${chart}: the markup rendered`).not.toBe('RENDERED');
        expect(html).toContain('&lt;div id="pwn"');
        expect(await page.locator('#pwn').count()).toBe(0);
      }
      await page.close();
    },
  );
});
