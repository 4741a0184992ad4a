// The Plan form in Chromium against a real `serve`: a wrong value is said next to its
// field in the contract schema's words (−5, 0, empty, 2.5, 1,000,000 beyond the model's maximum
// positions), nothing is sent while a field is wrong, no error box sits above old results (they
// are marked out of date instead), a broken config.json names the field where it breaks (not
// "(root)"), and the plan with its workload and selection survives a page reload.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  serve = await startServe();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** The error shown inside the same field (label) as the input, or null. */
async function fieldError(page: Page, testId: string): Promise<string | null> {
  const inField = page.locator(`label.field:has([data-testid="${testId}"]) [data-testid="${testId}-error"]`);
  return (await inField.count()) ? ((await inField.textContent()) ?? '') : null;
}

describe('Plan form: errors next to their field, from the contract; the plan survives a reload', () => {
  it('says what is wrong where it is wrong, sends nothing wrong, and keeps the plan over a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const planRequests: unknown[] = [];
    page.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        const m = JSON.parse(String(f.payload));
        if (m.channel === 'plan/compute') planRequests.push(m.payload);
      }),
    );
    await page.goto(serve.url + '#/plan');
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.selectOption('[data-testid="model-select"]', 'llama-3.2-3b');
    await page.fill('[data-testid="seq-len"]', '2048');
    await page.fill('[data-testid="gpus"]', '1');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
    expect(await page.locator('[data-testid="plan-stale"]').count()).toBe(0);
    const sentBefore = planRequests.length;

    // Each wrong value: the schema's words in the field, the button off, no error box, no request.
    const cases: [string, RegExp][] = [
      ['-5', /^Must be 1 or more\.$/],
      ['0', /^Must be 1 or more\.$/],
      ['', /^Enter a number\.$/],
      ['2.5', /^Must be a whole number \(no fractions\)\.$/],
      [
        '1000000',
        /^field 'seqLen' 1,000,000 is longer than Llama 3\.2 3B reads: at most 131,072 positions \(its max_position_embeddings\); use a shorter sequence\.$/,
      ],
    ];
    for (const [value, message] of cases) {
      await page.fill('[data-testid="seq-len"]', value);
      expect(await page.inputValue('[data-testid="seq-len"]'), 'what is typed stays').toBe(value);
      expect(await fieldError(page, 'seq-len'), `seq ${JSON.stringify(value)}`).toMatch(message);
      expect(await page.getAttribute('[data-testid="seq-len"]', 'aria-invalid')).toBe('true');
      expect(await page.isDisabled('[data-testid="compute-plan"]')).toBe(true);
      expect(await page.textContent('[data-testid="form-blocked"]')).toMatch(/Correct the marked field/);
      expect(await page.locator('.error-box').count(), 'no error box above the results').toBe(0);
    }
    await page.screenshot({ path: path.join(artifacts, 'plan-form-1-seq-error.png') });
    // The old results stay, marked as out of date (the workload changed), not under a raw error.
    expect(await page.textContent('[data-testid="plan-stale"]')).toMatch(/workload changed since this plan/);
    expect(planRequests.length, 'nothing wrong was sent').toBe(sentBefore);
    // Other fields say it the same way.
    await page.fill('[data-testid="micro-batch"]', '1.5');
    expect(await fieldError(page, 'micro-batch')).toBe('Must be a whole number (no fractions).');
    await page.fill('[data-testid="micro-batch"]', '1');
    expect(await fieldError(page, 'micro-batch')).toBeNull();

    // A valid value clears the error; planning again clears the out-of-date mark.
    await page.fill('[data-testid="seq-len"]', '4096');
    expect(await fieldError(page, 'seq-len')).toBeNull();
    expect(await page.locator('[data-testid="form-blocked"]').count()).toBe(0);
    await page.click('[data-testid="compute-plan"]');
    await expect.poll(() => planRequests.length).toBe(sentBefore + 1);
    await page.waitForSelector('[data-testid="plan-result"]:not([data-stale])', { timeout: 60_000 });
    expect(await page.locator('[data-testid="plan-stale"]').count()).toBe(0);
    expect((planRequests.at(-1) as { workload: { seqLen: number } }).workload.seqLen).toBe(4096);

    // The selection the user made survives too: untick one strategy, then reload.
    const boxes = page.locator('[data-testid="strategy-table"] input[type="checkbox"]');
    const firstChecked = await boxes.first().isChecked();
    await boxes.first().click();
    const recommendation = await page.textContent('[data-testid="recommendation"]');
    const rows = await page.locator('[data-testid="strategy-table"] tbody tr').count();

    await page.reload();
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.waitForSelector('[data-testid="plan-result"]', { timeout: 30_000 });
    expect(await page.inputValue('[data-testid="seq-len"]')).toBe('4096');
    expect(await page.inputValue('[data-testid="model-select"]')).toBe('llama-3.2-3b');
    expect(await page.textContent('[data-testid="recommendation"]')).toBe(recommendation);
    expect(await page.locator('[data-testid="strategy-table"] tbody tr').count()).toBe(rows);
    expect(await boxes.first().isChecked()).toBe(!firstChecked);
    expect(await page.locator('[data-testid="plan-stale"]').count()).toBe(0);
    await page.screenshot({ path: path.join(artifacts, 'plan-form-2-after-reload.png') });

    // A broken config.json: the field where it breaks, next to the import field; no '(root)'.
    const llama = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/fixtures/hf-configs/llama-3.1-8b.json'), 'utf8'));
    const broken = JSON.stringify(llama, null, 2).replace(/("num_hidden_layers": \d+),/, '$1');
    await page.setInputFiles('[data-testid="hf-import"]', {
      name: 'config.json',
      mimeType: 'application/json',
      buffer: Buffer.from(broken),
    });
    await page.waitForSelector('label.field:has([data-testid="hf-import"]) [data-testid="hf-import-error"]');
    const importError = (await page.textContent('[data-testid="hf-import-error"]')) ?? '';
    expect(importError).toMatch(
      /^Could not import config\.json: config\.json: field 'num_hidden_layers' is not valid JSON \(at line \d+, column \d+: .*\)/,
    );
    expect(importError).not.toContain('(root)');
    expect(await page.locator('.error-box').count()).toBe(0);
    // A good one imports and becomes the chosen model; the import error goes.
    await page.setInputFiles('[data-testid="hf-import"]', {
      name: 'config.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(llama)),
    });
    // The import probes the config with the engine environment's transformers (e33a16d): seconds, not a tick.
    await expect.poll(() => page.inputValue('[data-testid="model-select"]'), { timeout: 60_000 }).toMatch(/^imported-/);
    expect(await page.locator('[data-testid="hf-import-error"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the backend refuses the same values naming the field (a client that skips the form)', async () => {
    const { default: WebSocket } = await import('ws');
    const ws = new WebSocket(`${serve.origin.replace('http', 'ws')}/ws?token=${serve.token}`, { headers: { Origin: serve.origin } });
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    let id = 0;
    const invoke = (payload: unknown) =>
      new Promise<{ ok: boolean; error?: { code: string; message: string; field?: string } }>((resolve) => {
        const mine = ++id;
        const on = (d: unknown) => {
          const m = JSON.parse(String(d));
          if (m.id === mine) (ws.off('message', on), resolve(m.result));
        };
        ws.on('message', on);
        ws.send(JSON.stringify({ id: mine, channel: 'plan/compute', payload }));
      });
    const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 1 };
    const long = await invoke({ workload: { ...workload, seqLen: 1_000_000 } });
    expect(long.error).toMatchObject({ code: 'bad_request', field: 'seqLen' });
    expect(long.error!.message).toMatch(/field 'seqLen' 1,000,000 is longer than Llama 3\.2 3B reads: at most 131,072/);
    const frac = await invoke({ workload: { ...workload, seqLen: 2.5 } });
    expect(frac.error).toMatchObject({ code: 'bad_request', field: 'workload.seqLen' });
    expect(frac.error!.message).toMatch(/must be a whole number \(no fractions\)/);
    ws.close();
  });
});
