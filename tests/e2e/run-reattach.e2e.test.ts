// In Chromium against a real `serve`: a page opened while a sweep runs —
// the Run page reloaded, a second tab, a laptop's browser reconnecting over the SSH tunnel — said
// "Nothing is running" beside a sweep that was running. It now takes the sweep up: its id, its
// runs and their states, and follows it to the end. The runs are real child processes (the fake
// runner behind the interpreter chosen in Setup: tests/reliability/fixtures/fake-python).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

const FAKE_PYTHON = path.join(repoRoot, 'tests/reliability/fixtures/fake-python');
let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  const dataDir = tempDir('offload-run-reattach-');
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ pythonPath: FAKE_PYTHON }));
  serve = await startServe([], dataDir, { env: { FAKE_RUNNER_DELAY: '0.15' } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

async function planAndRun(page: Page, steps: number): Promise<void> {
  await page.goto(serve.url + '#/plan');
  await page.waitForSelector('[data-app-state="loaded"]');
  await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
  await page.fill('[data-testid="seq-len"]', '32');
  await page.click('[data-testid="compute-plan"]');
  await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
  for (const id of ['zero3-offload', 'zero2-offload', 'zero3-offload-param']) {
    const box = page.locator(`[data-testid="strategy-${id}"] input[type="checkbox"]`);
    if ((await box.isChecked()) !== (id !== 'zero3-offload-param')) await box.click();
  }
  await page.fill('[data-testid="run-steps"]', String(steps));
  await page.fill('[data-testid="run-warmup"]', '1');
  await page.fill('[data-testid="run-repeats"]', '2');
  await page.click('[data-testid="start-sweep"]');
  await page.waitForSelector('[data-testid="run-page"]', { timeout: 30_000 });
}

const subtitle = (page: Page) => page.textContent('[data-testid="run-page"] .page-header p');
const rowIds = (page: Page) => page.$$eval('[data-testid="sweep-run"]', (rows) => rows.map((r) => r.getAttribute('data-run-id')));

describe('the Run page after a reload', () => {
  it('a page opened mid-sweep shows the running sweep and follows it to its end', async () => {
    const first = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await planAndRun(first, 20);
    // Into the first run's steps.
    await first.waitForSelector('[data-testid="sweep-run"][data-status="running"]', { timeout: 60_000 });
    const ids = await rowIds(first);
    expect(ids).toHaveLength(4);
    const header = await subtitle(first);
    expect(header).toMatch(/Sweep sw-\S+ — 4 run\(s\)/);

    // A second tab, as a reload or a reconnecting browser opens it.
    const second = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await second.goto(serve.url + '#/run');
    await second.waitForSelector('[data-app-state="loaded"]');
    await second.waitForSelector('[data-testid="run-page"]', { timeout: 15_000 });
    expect(await second.textContent('main')).not.toContain('Nothing is running');
    expect(await subtitle(second)).toBe(header);
    expect(await rowIds(second)).toEqual(ids);
    expect(await second.getAttribute('[data-testid="run-page"]', 'data-sweep-state')).toBe('running');
    expect(await second.isVisible('[data-testid="cancel-sweep"]')).toBe(true);

    // Both follow it to the same end.
    for (const page of [first, second])
      await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 120_000 });
    const statuses = await second.$$eval('[data-testid="sweep-run"]', (rows) => rows.map((r) => r.getAttribute('data-status')));
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'completed']);
    await expect
      .poll(() => second.getAttribute('[data-testid="sweep-progress"] [role="progressbar"]', 'aria-label'))
      .toBe('Sweep finished: 4/4 run(s) completed');

    // Once it ended, a new page has nothing running to show.
    const third = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await third.goto(serve.url + '#/run');
    await third.waitForSelector('[data-app-state="loaded"]');
    await third.waitForTimeout(1000);
    expect(await third.textContent('main')).toContain('Nothing is running');
    for (const page of [first, second, third]) await page.close();
  }, 240_000);
});
