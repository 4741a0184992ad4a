// The Runs table's scroll box follows the window (seen on a walk-through at 1920×1080): with the sample
// dataset's 65 runs a tall window showed 14 rows in a fixed 520-pixel box above an empty half page; a
// laptop window keeps a box that fits it. In Chromium against `serve`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  serve = await startServe();
  await invokeOverServe(serve, 'samples/load', {});
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

async function boxAt(width: number, height: number): Promise<{ box: number; page: number; rows: number }> {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(serve.url + '#/runs');
  await page.waitForSelector('[data-testid="runs-table"] .runs-viewport');
  const out = await page.evaluate(() => {
    const box = document.querySelector<HTMLElement>('.runs-viewport')!;
    return {
      box: box.getBoundingClientRect().height,
      bottom: box.getBoundingClientRect().bottom,
      page: document.documentElement.scrollHeight,
    };
  });
  await page.close();
  return { box: out.box, page: out.page, rows: Math.floor(out.box / 36) };
}

describe('the Runs table uses the window it has', () => {
  it('1920×1080: more than 20 rows visible, and the page still fits the window', async () => {
    const tall = await boxAt(1920, 1080);
    expect(tall.rows).toBeGreaterThan(20);
    expect(tall.page).toBeLessThanOrEqual(1080 + 1);
  }, 60_000);

  it('1280×800: the box leaves the page within the window', async () => {
    const laptop = await boxAt(1280, 800);
    expect(laptop.rows).toBeGreaterThanOrEqual(10);
    expect(laptop.page).toBeLessThanOrEqual(800 + 1);
  }, 60_000);
});
