// In Chromium against a real `serve`: a config.json imported on the Plan page is counted
// by transformers in the engine environment — a Gemma config (no formula for it) becomes a model to
// plan, and the plan is computed; a Mixture-of-Experts config routing to more experts than it has is refused by name next to the import
// field; with no engine environment (the selected interpreter is gone) the page says the count is
// unavailable and to create the engine environment, instead of a guess.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startServe, type ServeHandle } from '../helpers/serve';
import { haveEngine, TINY_GEMMA } from '../helpers/model-probe';

const gemma = TINY_GEMMA;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-e2e-model-import-'));
function configFile(name: string, cfg: Record<string, unknown>): string {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  const file = path.join(dir, name, 'config.json');
  fs.writeFileSync(file, JSON.stringify(cfg));
  return file;
}

let browser: Browser;
const serves: ServeHandle[] = [];
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const s of serves) await s.stop();
});

async function planPage(serve: ServeHandle): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(serve.url + '#/plan');
  await page.waitForSelector('[data-testid="hf-import"]');
  return page;
}

describe('Plan page: import a config.json', () => {
  it.skipIf(!haveEngine)(
    'a Gemma config.json is counted by transformers and planned; a MoE config routing to more experts than it has is refused by name',
    { timeout: 240_000 },
    async () => {
      const serve = await startServe();
      serves.push(serve);
      const page = await planPage(serve);
      await page.setInputFiles('[data-testid="hf-import"]', configFile('gemma', gemma));
      await expect.poll(async () => await page.inputValue('[data-testid="model-select"]'), { timeout: 120_000 }).toBe('imported-config');
      expect(await page.textContent('[data-testid="model-select"] option:checked')).toMatch(/imported gemma\)/);
      expect(await page.$('[data-testid="hf-import-error"]')).toBeNull();
      await page.fill('[data-testid="seq-len"]', '32');
      await page.click('[data-testid="compute-plan"]');
      await page.waitForSelector('[data-testid="plan-result"]', { timeout: 120_000 });

      await page.setInputFiles(
        '[data-testid="hf-import"]',
        configFile('mixtral', { ...gemma, model_type: 'mixtral', num_local_experts: 4, num_experts_per_tok: 6 }),
      );
      await expect
        .poll(async () => (await page.textContent('[data-testid="hf-import-error"]').catch(() => null)) ?? '', { timeout: 120_000 })
        .toMatch(/num_experts_per_tok is 6.*Set num_experts_per_tok/);
    },
  );

  it('without an engine environment the count is said to be unavailable', { timeout: 120_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-e2e-no-engine-'));
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ pythonPath: '/nonexistent/engine/bin/python3' }));
    const serve = await startServe([], dataDir);
    serves.push(serve);
    const page = await planPage(serve);
    await page.setInputFiles('[data-testid="hf-import"]', configFile('gemma-2', gemma));
    await expect
      .poll(async () => (await page.textContent('[data-testid="hf-import-error"]').catch(() => null)) ?? '', { timeout: 60_000 })
      .toMatch(/Parameter count unavailable — create the engine environment \(the app’s Setup, or: bash scripts\/setup-engine-venv\.sh\)/);
  });
});
