// Your own ds_config on the Plan page, in Chromium against a real `serve` (fresh data folder): the
// SuperOffload guide's config dropped on the page, planned for a loaded H200 `detect --json`, gets
// its strategy, a verdict, a prediction, the tuned alternative as a diff of keys with the predicted
// gain, and the launch lines; a config that is not JSON is refused with its line and column.
// Screenshots go to test-results/e2e/your-config-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { engineVenvs } from '../../electron/services/engine';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
const H200 = path.join(repoRoot, 'tests', 'fixtures', 'hosts', 'h200-sxm-x86', 'machine.json');
const engineReady = engineVenvs().some((v) => fs.existsSync(path.join(v, '.offload-studio-complete')));
const ZERO_OFFLOAD = path.join(repoRoot, 'tests', 'fixtures', 'ds-configs', 'dsexamples-zero-offload.json');
const GUIDE = path.join(repoRoot, 'tests', 'fixtures', 'ds-configs', 'deepspeed-guide-superoffload.json');

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  serve = await startServe();
  browser = await launchChromium();
  await invokeOverServe(serve, 'wizard/save', { dismissed: true });
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** Drops a file on the drop zone the way a desktop drag does: a drop event carrying a DataTransfer. */
async function drop(page: Page, name: string, text: string) {
  const dataTransfer = await page.evaluateHandle(
    ([n, t]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], n, { type: 'application/json' }));
      return dt;
    },
    [name, text] as const,
  );
  await page.dispatchEvent('[data-testid="ds-config-drop"]', 'dragover', { dataTransfer });
  await page.dispatchEvent('[data-testid="ds-config-drop"]', 'drop', { dataTransfer });
}

async function planPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(serve.url + '#/plan');
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForSelector('[data-testid="ds-config-drop"]', { timeout: 60_000 });
  return { page, errors };
}

describe('your DeepSpeed config on the Plan page', () => {
  it('the SuperOffload guide config dropped on the page gets a verdict, a prediction and a diff to the tuned config', async () => {
    const { page, errors } = await planPage();
    await page.setInputFiles('[data-testid="machine-file"]', H200);
    await expect.poll(async () => await page.textContent('[data-testid="machine-summary"]')).toMatch(/1 × NVIDIA H200/);
    await page.selectOption('[data-testid="model-select"]', 'llama-3.2-3b');
    await page.fill('[data-testid="seq-len"]', '4096');
    await drop(page, 'deepspeed-guide-superoffload.json', fs.readFileSync(GUIDE, 'utf8'));
    await page.waitForSelector('[data-testid="user-config-result"]', { timeout: 60_000 });
    expect(await page.textContent('[data-testid="user-config-strategy"]')).toBe('SuperOffload');
    expect(await page.textContent('[data-testid="user-config-result"]')).toMatch(/micro batch 4 × accumulation 1 × 1 GPU\(s\) = 4/);
    expect(await page.textContent('[data-testid="user-config-verdict"]')).toMatch(/^Fits: /);
    expect(await page.textContent('[data-testid="user-config-prediction"]')).toMatch(/^[\d.]+ s\/step$/);
    expect(await page.textContent('[data-testid="user-config-notes"]')).toMatch(/cpuadam|optimizer/);
    const diff = await page.textContent('[data-testid="user-config-diff"]');
    expect(diff).toContain('zero_optimization.stage');
    expect(diff).toContain('zero_optimization.offload_optimizer.super_offload');
    expect(await page.textContent('[data-testid="user-config-gain"]')).toMatch(/[\d.]+× yours \(predicted\)/);
    expect(await page.textContent('[data-testid="launch-yours-deepspeed"]')).toBe(
      'deepspeed --num_gpus 1 train.py --deepspeed ds_config.json',
    );
    // planned for a loaded machine: not run here, and it says why
    expect(await page.isDisabled('[data-testid="run-user-config"]')).toBe(true);
    await page.screenshot({ path: path.join(artifacts, 'your-config-1-guide.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a config that is not JSON is refused with its line, column and what was expected, nothing else shown', async () => {
    const { page, errors } = await planPage();
    await drop(page, 'broken.json', '{\n  "train_batch_size": 4,\n  "bf16": {"enabled": true},\n}\n');
    await page.waitForSelector('.error-box, [role="alert"]', { timeout: 60_000 });
    const text = await page.textContent('[data-testid="ds-config-drop"] ~ *');
    expect(text).toMatch(/^This config cannot be planned\. broken\.json is not JSON: at line 4, column 1 JSON expected a property name/);
    // a refusal of the user's file, not the app's fault, and no "((json))" field beside it
    expect(text).not.toMatch(/Something went wrong|\(\(json\)\)|\(broken\.json\)/);
    expect(await page.$('[data-testid="user-config-result"]')).toBeNull();
    await page.screenshot({ path: path.join(artifacts, 'your-config-2-not-json.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it.skipIf(!engineReady)(
    'on this machine, your ZeRO-3-offload config runs unchanged and its run page says so, with the launch lines',
    async () => {
      const { page, errors } = await planPage();
      await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
      await page.fill('[data-testid="seq-len"]', '64');
      await drop(page, 'dsexamples-zero-offload.json', fs.readFileSync(ZERO_OFFLOAD, 'utf8'));
      await page.waitForSelector('[data-testid="user-config-result"]', { timeout: 60_000 });
      expect(await page.textContent('[data-testid="user-config-strategy"]')).toBe('ZeRO-3 Offload');
      await expect.poll(() => page.isEnabled('[data-testid="run-user-config"]')).toBe(true);
      await page.click('[data-testid="run-user-config"]');
      await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 540_000 });
      const { runs } = await invokeOverServe<{ runs: { id: string; status: string }[] }>(serve, 'runs/list', {});
      expect(runs.map((r) => r.status)).toEqual(['completed']);
      await page.goto(`${serve.url}#/runs/${runs[0].id}`);
      await page.waitForSelector('[data-testid="run-launch"]', { timeout: 60_000 });
      expect(await page.textContent('[data-testid="run-user-config"]')).toMatch(
        /^Your own config: dsexamples-zero-offload\.json \(sha256 [0-9a-f]{12}…\), run unchanged/,
      );
      expect(await page.textContent('[data-testid="run-launch"]')).toContain('deepspeed --num_gpus 1 train.py --deepspeed ds_config.json');
      await page.screenshot({ path: path.join(artifacts, 'your-config-3-run-detail.png'), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    },
    600_000,
  );
});
