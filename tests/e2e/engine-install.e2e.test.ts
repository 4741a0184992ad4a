// The wizard's "Create environment" for real, in Chromium against `serve`: a fresh venv made by the
// app from a small local package set (the bootstrap pins as wheels + a setup.py-only sdist that
// needs --no-build-isolation, the shape of DeepSpeed), and the named failure when pip cannot reach
// its index. The package set is chosen through the environment the user would set
// (OFFLOAD_STUDIO_ENGINE_REQUIREMENTS, PIP_INDEX_URL / PIP_FIND_LINKS), not a test-only channel.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { makeBootstrapWheelhouse, makeSdist } from '../helpers/local-packages';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';

let browser: Browser;
const serves: ServeHandle[] = [];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-install-e2e-'));
let requirementsFile = '';
const artifacts = path.join(repoRoot, 'test-results', 'e2e');

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const sdist = makeSdist(work);
  makeBootstrapWheelhouse(path.join(work, 'wheels'));
  requirementsFile = path.join(work, 'requirements.txt');
  fs.writeFileSync(requirementsFile, `# the engine pins, replaced by a local package\n${sdist}\n`);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const s of serves) await s.stop();
});

async function openEnvironmentStep(env: NodeJS.ProcessEnv): Promise<{ page: Page; serve: ServeHandle }> {
  const serve = await startServe([], undefined, {
    env: { OFFLOAD_STUDIO_ENGINE_REQUIREMENTS: requirementsFile, PIP_NO_CACHE_DIR: '1', ...env },
  });
  serves.push(serve);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(serve.url);
  await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="welcome"]', { timeout: 60_000 });
  await page.click('[data-testid="wizard-next"]');
  await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="hardware"]');
  await page.click('[data-testid="wizard-next"]');
  await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="environment"]');
  await page.getByRole('button', { name: 'Create environment' }).waitFor({ timeout: 120_000 });
  return { page, serve };
}

describe('wizard: create the engine environment', () => {
  it('creates the app environment from a local package set (bootstrap, then an sdist without isolation)', async () => {
    const { page, serve } = await openEnvironmentStep({ PIP_NO_INDEX: '1', PIP_FIND_LINKS: path.join(work, 'wheels') });
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.waitForSelector('.ok-text:has-text("Installed:")', { timeout: 240_000 });
    await page.screenshot({ path: path.join(artifacts, 'engine-install-done.png') });
    const python = path.join(serve.dataDir, 'engine-venv', 'bin', 'python3');
    const check = spawnSync(python, ['-c', 'import tinypkg, wheel; print(tinypkg.VALUE)'], { encoding: 'utf8' });
    expect(check.stdout.trim()).toBe('42');
    expect(fs.readFileSync(path.join(serve.dataDir, 'engine-venv', '.offload-studio-complete'), 'utf8')).toMatch(/bootstrap=\d+/);
    await page.close();
  }, 300_000);

  it('says pip cannot reach its index, and what to do, when the index is down', async () => {
    const { page, serve } = await openEnvironmentStep({
      PIP_INDEX_URL: 'http://127.0.0.1:9/simple',
      PIP_FIND_LINKS: '',
      PIP_RETRIES: '0',
      PIP_DEFAULT_TIMEOUT: '3',
    });
    await page.getByRole('button', { name: 'Create environment' }).click();
    const box = page.locator('.error-box');
    await box.waitFor({ timeout: 120_000 });
    const text = (await box.textContent()) ?? '';
    await page.screenshot({ path: path.join(artifacts, 'engine-install-no-index.png') });
    expect(text).toMatch(/pip could not reach the package index \(http:\/\/127\.0\.0\.1:9\/simple\)/);
    expect(text).toMatch(/PIP_INDEX_URL/);
    expect(text).toMatch(/previous environment is unchanged/);
    expect(fs.existsSync(path.join(serve.dataDir, 'engine-venv'))).toBe(false);
    await page.close();
  }, 300_000);
});
