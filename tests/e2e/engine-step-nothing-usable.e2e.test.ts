// Setup's Engine step on a machine where no interpreter has torch and DeepSpeed (a fresh Debian 12
// VM: this one with the engine venv's cache folder pointed elsewhere), in Chromium against `serve`.
// Creating the app's own environment is the first thing offered; the interpreters found are folded,
// one line each — not a dozen pip commands ahead of it — and a system Python that refuses pip
// (PEP 668) is not offered a `pip install` into it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  // An empty cache root and no named venv ($OFFLOAD_STUDIO_ENGINE_VENV, where a CI clone may build it): the
  // engine venv made by scripts/setup-engine-venv.sh is not found.
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-step-cache-'));
  serve = await startServe([], undefined, {
    env: { XDG_CACHE_HOME: cache, VIRTUAL_ENV: '', CONDA_PREFIX: '', OFFLOAD_STUDIO_PYTHON: '', OFFLOAD_STUDIO_ENGINE_VENV: '' },
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('the Engine step with nothing usable', () => {
  it('offers Create environment first, folds the interpreters, and offers no pip install into a PEP 668 Python', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url);
    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="welcome"]', { timeout: 60_000 });
    await page.click('[data-testid="wizard-next"]');
    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="hardware"]');
    await page.click('[data-testid="wizard-next"]');
    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="environment"]');
    await page.waitForSelector('[data-testid="env-checked-at"]', { timeout: 180_000 });
    await page.screenshot({ path: path.join(artifacts, 'engine-step-nothing-usable.png'), fullPage: true });
    const layout = await page.evaluate(() => {
      const create = document.querySelector('[data-testid="create-environment"]')!;
      const button = [...create.querySelectorAll('button')].find((b) => b.textContent === 'Create environment')!;
      const before = (el: Element) => !!(button.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING);
      // pip commands a user sees (not folded away) ahead of the button
      const pipAhead = [...document.querySelectorAll('code')].filter(
        (c) => c.textContent?.includes('pip install') && (c as HTMLElement).offsetParent !== null && before(c),
      ).length;
      const folded = document.querySelector<HTMLDetailsElement>('[data-testid="other-interpreters"]');
      const heads = [...document.querySelectorAll('[data-testid="interpreters"] th')].map((th) => th.textContent);
      return {
        pipAhead,
        heading: create.querySelector('h3')?.textContent ?? '',
        folded: !!folded,
        open: folded?.open ?? null,
        foldedText: folded?.textContent ?? '',
        heads,
      };
    });
    // Nothing ready: the table is its one sentence, without empty column heads over it.
    expect(layout.heads).toEqual([]);
    expect(layout.heading).toMatch(/^No interpreter here can run the engine yet/);
    expect(layout.pipAhead).toBe(0);
    if (layout.folded) expect(layout.open).toBe(false);
    // Debian 12's /usr/bin/python3 carries PEP 668's marker: it is never offered `pip install` into it.
    expect(layout.foldedText).not.toContain('/usr/bin/python3 -m pip install');
    if (fs.existsSync('/usr/lib/python3.11/EXTERNALLY-MANAGED') && layout.foldedText.includes('/usr/bin/python3 —'))
      expect(layout.foldedText).toContain('externally-managed-environment');
    await page.close();
  }, 300_000);
});
