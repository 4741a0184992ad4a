// Issue 30 walk-through, seen in the 1280×800 screenshots of a fresh clone, in Chromium against `serve`:
//  - the Plan table's verdict pill ("needs a GPU") broke over two lines, half a pill on each;
//  - the Engine step's "Create environment" button sat flush on the Re-check / Continue row (or on
//    the interpreter table, when nothing is ready), as if one group of buttons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  serve = await startServe();
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

describe('first-hour polish at 1280×800', () => {
  it("the Plan table's verdict pills are one line each", async () => {
    const page = await open('#/plan');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '64');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="strategy-table"] .badge', { timeout: 60_000 });
    const pills = await page.$$eval('[data-testid="strategy-table"] .badge', (els) =>
      els.map((el) => ({ text: el.textContent, lines: el.getClientRects().length, height: el.getBoundingClientRect().height, line: parseFloat(getComputedStyle(el).lineHeight) || 18 })),
    );
    expect(pills.length).toBeGreaterThan(5);
    for (const p of pills) {
      expect(p.lines, JSON.stringify(p)).toBe(1);
      expect(p.height, JSON.stringify(p)).toBeLessThan(p.line * 1.6);
    }
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
});
