// The Run page, in Chromium against a real `serve`: Plan → Run of two
// strategies × two repeats, each run a real child process (the fake runner behind the interpreter
// chosen in Setup: tests/reliability/fixtures/fake-python, speaking the engine's JSON lines).
//  - Every state of the progress bar the page showed, watched from inside the page: the percentage
//    never goes back, while running the header names a run that is running (not the one that just
//    ended), and a cancelled sweep says it was cancelled and how many ran, never "finished … 100 %".
//  - The Run page's result is Compare's headline for the same runs (one rule: per-strategy medians).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Comparison } from '../../electron/contract';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

const FAKE_PYTHON = path.join(repoRoot, 'tests/reliability/fixtures/fake-python');
let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  const dataDir = tempDir('offload-run-progress-');
  // The interpreter chosen in Setup, as environment/select stores it.
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ pythonPath: FAKE_PYTHON }));
  serve = await startServe([], dataDir, { env: { FAKE_RUNNER_DELAY: '0.15' } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

type Seen = { pct: number; label: string; done: boolean; running: string[]; ended: string[] };

/** Records every state of the sweep's progress bar, with which runs the table shows running/ended then. */
async function watchProgress(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: Seen[] = [];
    (window as unknown as { __progress: Seen[] }).__progress = seen;
    const look = () => {
      const bar = document.querySelector('[data-testid="sweep-progress"] [role="progressbar"]');
      if (!bar) return;
      const rows = [...document.querySelectorAll('[data-testid="sweep-run"]')];
      const label = bar.getAttribute('aria-label') ?? '';
      const pct = Number(bar.getAttribute('aria-valuenow'));
      const last = seen[seen.length - 1];
      if (last && last.label === label && last.pct === pct) return;
      const names = (status: string[]) =>
        rows
          .filter((r) => status.includes(r.getAttribute('data-status') ?? ''))
          .map((r) => `${r.getAttribute('data-strategy')}#${Number(r.getAttribute('data-repeat')) + 1}`);
      seen.push({
        pct,
        label,
        done: document.querySelector('[data-testid="run-page"]')?.getAttribute('data-sweep-state') === 'done',
        running: names(['running']),
        ended: names(['completed', 'failed', 'cancelled']),
      });
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

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

const progressSeen = (page: Page) => page.evaluate(() => (window as unknown as { __progress: Seen[] }).__progress);

function expectForward(seen: Seen[]): void {
  for (let i = 1; i < seen.length; i++)
    expect(seen[i].pct, `${seen[i - 1].label} (${seen[i - 1].pct} %) → ${seen[i].label} (${seen[i].pct} %)`).toBeGreaterThanOrEqual(
      seen[i - 1].pct,
    );
}

describe("the Run page of a sweep (done or cancelled): progress only forward, the running run named, Compare's result", () => {
  it("a sweep to its end: the bar only goes forward, the header names the running run, the result is Compare's", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await watchProgress(page);
    await planAndRun(page, 4);
    await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 120_000 });
    const seen = await progressSeen(page);
    expect(seen.length).toBeGreaterThan(8);
    expectForward(seen);
    // While running, "Run k of 4 — <strategy>[ #2], step …" names a run the table shows running.
    for (const s of seen.filter((x) => !x.done && / step \d+\/\d+/.test(x.label))) {
      const named = /Run \d+ of 4 — (.+?), step/.exec(s.label)![1];
      expect(s.running.length, s.label).toBe(1);
      const [strategy, repeat] = s.running[0].split('#');
      expect(named, JSON.stringify(s)).toBe(
        `${strategy === 'zero3-offload' ? 'ZeRO-3 Offload' : 'ZeRO-Offload'}${repeat === '1' ? '' : ` #${repeat}`}`,
      );
    }
    expect(seen.at(-1)!.label).toBe('Sweep finished: 4/4 run(s) completed');
    expect(seen.at(-1)!.pct).toBe(100);
    // One rule: the result is Compare's headline of the same runs.
    const ids = await page.$$eval('[data-testid="sweep-run"]', (rows) => rows.map((r) => r.getAttribute('data-run-id')!));
    const c = await invokeOverServe<Comparison>(serve, 'compare/runs', { ids });
    expect(c.headline).toBeTruthy();
    await expect.poll(() => page.textContent('[data-testid="sweep-headline"]')).toBe(c.headline);
    await page.close();
  }, 180_000);

  it('a cancelled sweep: the bar holds where it was, and the header says cancelled and how many ran', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await watchProgress(page);
    await planAndRun(page, 40);
    // Cancel in the second run, a few steps in.
    await page.waitForFunction(
      () =>
        Number(
          /^Run 2 of 4 — .*, step (\d+)\//.exec(
            document.querySelector('[data-testid="sweep-progress"] [role="progressbar"]')?.getAttribute('aria-label') ?? '',
          )?.[1] ?? 0,
        ) >= 3,
      undefined,
      { timeout: 120_000 },
    );
    await page.click('[data-testid="cancel-sweep"]');
    await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 60_000 });
    const seen = await progressSeen(page);
    expectForward(seen);
    const last = seen.at(-1)!;
    expect(last.label).toMatch(/^Sweep cancelled after 2 of 4 run\(s\): 1 completed, 1 cancelled at step \d+\/41, 2 not started$/);
    expect(last.pct).toBeLessThan(100);
    expect(seen.some((s) => /finished/.test(s.label))).toBe(false);
    await page.close();
  }, 180_000);
});
