// A new user walks the whole setup wizard in Chromium against a real `serve` with a fresh data
// folder: hardware, engine environment, host measurement, workload, plan, and — where an engine
// environment is present — a real tiny DeepSpeed run on this CPU. Screenshots of every step at
// 1280×800 go to test-results/e2e/wizard-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;
let page: Page;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
let shot = 0;

async function snap(name: string) {
  await page.screenshot({ path: path.join(artifacts, `wizard-${++shot}-${name}.png`), fullPage: false });
}

async function expectStep(step: string) {
  await page.waitForSelector(`[data-testid="setup-wizard"][data-wizard-step="${step}"]`, { timeout: 60_000 });
}

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  serve = await startServe();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('setup wizard, as a new user', () => {
  it('opens by itself on first run and walks to a plan (and a real tiny run where the engine is installed)', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(serve.url);
    await expectStep('welcome');
    await snap('welcome');
    await page.click('[data-testid="wizard-next"]');

    await expectStep('hardware');
    await page.waitForSelector('[data-testid="cpu-model"]');
    await snap('hardware');
    await page.click('[data-testid="wizard-next"]');

    await expectStep('environment');
    await page.waitForSelector('[data-testid="interpreters"]', { timeout: 120_000 });
    await snap('environment');
    // Use a ready interpreter if there is one (CI's engine venv), preferring the app's engine venvs.
    const rows = page.locator('[data-testid="interpreters"] tbody tr');
    let readyRow: number | null = null;
    for (let i = 0; i < (await rows.count()); i++) {
      const text = (await rows.nth(i).textContent()) ?? '';
      if (text.includes('ready') && (readyRow === null || text.includes('engine-venv'))) readyRow = i;
    }
    if (readyRow !== null) {
      const radio = rows.nth(readyRow).locator('input[type=radio]');
      await radio.click();
      await expect.poll(() => radio.isChecked(), { timeout: 60_000 }).toBe(true);
    }
    await page.click('[data-testid="wizard-next"]');

    await expectStep('measure');
    await page.selectOption('[data-testid="measure-budget"]', '10');
    await page.click('[data-testid="measure-start"]');
    await page.waitForSelector('[data-testid="measure-progress"]', { timeout: 10_000 }).catch(() => undefined);
    await page.waitForSelector('[data-testid="measure-result"], .error-box', { timeout: 120_000 });
    await snap('measure');
    // A budget, and what it took (issue 49.9: "standard (30 s)" took 53 s).
    expect(await page.locator('[data-testid="measure-budget"] option').allTextContents()).toEqual([
      'quick (10 s budget)',
      'standard (30 s budget)',
      'thorough (90 s budget)',
    ]);
    if (await page.locator('[data-testid="measure-result"]').count())
      expect(await page.textContent('[data-testid="measure-result"]')).toMatch(/Took\d+ s/);
    // A reload at this step shows the stored measurement and Continue, not "Measure now / Skip" (issue 49.1).
    const measured = await page.locator('[data-testid="measure-result"]').count();
    await page.reload();
    await expectStep('measure');
    if (measured) {
      await page.waitForSelector('[data-testid="measure-result"]', { timeout: 30_000 });
      expect(await page.textContent('[data-testid="wizard-next"]')).toBe('Continue');
    }
    await page.click('[data-testid="wizard-next"]');

    await expectStep('workload');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '32');
    await snap('workload');
    await page.click('[data-testid="wizard-next"]');

    await expectStep('plan');
    await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
    await expect.poll(async () => page.textContent('[data-testid="recommendation"]')).toMatch(/ZeRO-3 Offload/); // the one display name (strategyLabel), not the catalogue's long label
    await snap('plan');
    // No GPU here: the plan's GPU memory column says "no prediction (CPU run)", as the run page, the
    // reports and the CSV do (issue 49.3: it said 3.8 GiB where the report said 2.3 GiB).
    if ((await page.textContent('[data-testid="recommendation"]'))?.includes('no GPU prediction')) {
      const gpuCells = page.locator('[data-testid="strategy-gpu"]');
      expect(await gpuCells.count()).toBeGreaterThan(0);
      expect(new Set(await gpuCells.allTextContents())).toEqual(new Set(['—']));
      expect(await gpuCells.first().getAttribute('title')).toBe('no prediction (CPU run)');
    }

    // Resumable: a reload lands on the same step.
    await page.reload();
    await expectStep('plan');
    await page.waitForSelector('[data-testid="strategy-table"]', { timeout: 60_000 });
    await page.click('[data-testid="wizard-next"]');

    await expectStep('run');
    // The run step says which strategies will run and roughly how long, and offers Tune beside it.
    expect(await page.textContent('[data-testid="sweep-summary"]')).toMatch(/^Will run .+ — about \d+ min/);
    expect(await page.textContent('[data-testid="tune-summary"]')).toMatch(/^Will try .+ — about \d+ min/);
    await snap('run');
    // Every step rebuilds from what the wizard stored (issue 49.1): a reload with nothing kept in the
    // browser (another port, another browser) still shows the comparison card, and Tune names the
    // stored workload — once it planned the Plan page's default, llama-3.2-3b at 2048. At 1920 too.
    const planned: { workload?: { model?: string; seqLen?: number } }[] = [];
    page.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        const m = JSON.parse(String(f.payload));
        if (m.channel === 'plan/compute') planned.push(m.payload);
      }),
    );
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await expectStep('run');
    await page.waitForSelector('[data-testid="sweep-summary"]', { timeout: 60_000 });
    expect(planned.map((p) => [p.workload?.model, p.workload?.seqLen])).toEqual([['tiny-llama', 32]]);
    expect(await page.textContent('[data-testid="tune-workload"]')).toMatch(/^Tunes tiny-llama at sequence length 32 /);
    expect(await page.textContent('[data-testid="tune-summary"]')).toMatch(/^Will try .+ — about \d+ min/);
    await page.screenshot({ path: path.join(artifacts, `wizard-${++shot}-run-after-reload-1920.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
    if (readyRow === null) {
      console.warn('wizard e2e: no ready engine environment (torch + DeepSpeed) found — stopping before the real run');
      return;
    }
    // Run only the recommended CPU path, briefly.
    await page.getByLabel('Measured steps').fill('2');
    await page.getByLabel('Warm-up steps').fill('1');
    await page.getByLabel('Repeats').fill('1'); // one run per strategy: the settings' 3 repeats tripled this test's time
    await page.click('[data-testid="start-sweep"]');
    await page.waitForSelector('[data-testid="run-page"]', { timeout: 30_000 });
    await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 300_000 });
    await snap('run-done');
    const statuses = await page.locator('[data-testid="sweep-runs"] .badge').allTextContents();
    expect(statuses.length).toBeGreaterThan(0);
    expect(
      statuses.every((s) => s === 'completed'),
      `run statuses: ${statuses.join(', ')}\n${await page.textContent('[data-testid="sweep-runs"]')}`,
    ).toBe(true);
    // Afterwards: the winner in words, with Compare these and Report.
    // Compare's rule: medians of repeats, a tie inside their spread; one strategy is not ranked
    await page.waitForFunction(() => !document.querySelector('[data-testid="sweep-headline"]')?.textContent?.includes('Ranking'));
    expect(await page.textContent('[data-testid="sweep-headline"]')).toMatch(
      / was [\d.]+× faster than | tie within the spread | were within 1 % |: [\d.,]+ TFLOPS\/GPU, [\d.,]+ s\/step \(median of measured steps\) — one strategy, nothing to rank it against/,
    );
    expect(await page.isEnabled('[data-testid="sweep-compare"]')).toBe(true);
    expect(await page.isEnabled('[data-testid="sweep-result"] button:has-text("Report")')).toBe(true);
    // After a reload nothing runs: the Run page links the sweep that just finished (issue 49.10),
    // not only "Nothing is running".
    await page.reload();
    await page.waitForSelector('[data-testid="last-sweep"]', { timeout: 30_000 });
    expect(await page.locator('[data-testid="last-sweep"] li a').count()).toBe(statuses.length);
    expect(await page.isEnabled('[data-testid="last-sweep-compare"]')).toBe(true);
    await snap('run-after-reload');
  }, 600_000);
});
