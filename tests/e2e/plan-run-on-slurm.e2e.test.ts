// The Plan page's "Run on" choice, in Chromium against a real `serve` (fresh data folder, no Slurm
// needed): the saved Slurm targets are offered beside this machine, and Run sends the chosen one with
// runs/start. The target is deleted behind the page's back (as `cluster delete` in a shell would) so
// the backend answers in its own words, naming the target, before anything is submitted to any
// scheduler; a Run that ignored the choice would start the sweep here instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;
const invoke = <T>(channel: string, payload: unknown) => invokeOverServe<T>(serve, channel, payload);

beforeAll(async () => {
  serve = await startServe();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('Plan page: Run on a Slurm target', () => {
  it('offers the saved targets and sends the chosen one with the run', async () => {
    await invoke('wizard/save', { dismissed: true });
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-slurm-work-'));
    await invoke('slurm/save', {
      kind: 'slurm',
      name: 'e2e-hpc',
      partition: 'gpu',
      timeLimitMinutes: 30,
      nodes: 2,
      gpusPerNode: 4,
      pythonPath: '/opt/venv/bin/python',
      workDir,
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(serve.url + '#/plan');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.waitForSelector('[data-testid="model-select"]', { timeout: 60_000 });
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '64');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="planned-for"][data-here="true"]', { timeout: 60_000 });
    await expect.poll(() => page.isEnabled('[data-testid="start-sweep"]')).toBe(true);

    const options = await page.$$eval('[data-testid="run-on"] option', (os) =>
      os.map((o) => [(o as HTMLOptionElement).value, o.textContent]),
    );
    expect(options).toEqual([
      ['', 'this machine'],
      ['e2e-hpc', 'Slurm e2e-hpc — partition gpu, 2 node(s) × 4 GPU(s)'],
    ]);
    await page.selectOption('[data-testid="run-on"]', 'e2e-hpc');

    await invoke('slurm/delete', { name: 'e2e-hpc' });
    await page.click('[data-testid="start-sweep"]');
    await expect
      .poll(async () => (await (await page.$('[role="alert"]'))?.textContent()) ?? 'no message shown', { timeout: 30_000 })
      .toContain("No Slurm target named 'e2e-hpc'");
    // Nothing ran here in its place.
    expect((await invoke<{ total: number }>('runs/list', {})).total).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
