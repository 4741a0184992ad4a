// Settings in a real Chromium against a real `serve`: the theme reaches <html data-theme> and
// settings.json (keeping keys other services wrote), a bad value is refused with the field named,
// and a cluster saved from the page lands in clusters.json with its pre-flight table shown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-settings-e2e-'));
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ somethingElse: { keep: true } }));
  serve = await startServe([], dir);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('Settings page', () => {
  it('shows the data folder this session uses when started with --data-dir, not the default one', async () => {
    const page = await browser.newPage();
    await page.goto(serve.url + '#/settings');
    await page.waitForSelector('[data-testid="settings-card"]');
    await expect.poll(() => page.inputValue('[data-testid="settings-datadir"]')).toBe(serve.dataDir);
    await page.close();
  });

  it('saves the theme and applies it, and refuses a bad value naming the field', async () => {
    const page = await browser.newPage();
    await page.goto(serve.url + '#/settings');
    await page.waitForSelector('[data-testid="settings-card"]');
    await page.selectOption('[data-testid="settings-theme"]', 'dark');
    await page.fill('[data-testid="settings-steps"]', '25');
    await page.click('[data-testid="settings-save"]');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await expect
      .poll(() => JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'settings.json'), 'utf8')))
      .toMatchObject({ theme: 'dark', defaultSteps: 25, somethingElse: { keep: true } });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(15, 18, 22)'); // the dark token, whatever the OS says

    await page.fill('[data-testid="settings-repeats"]', '0');
    await page.click('[data-testid="settings-save"]');
    await page.waitForSelector('[role="alert"]');
    expect(await page.textContent('[role="alert"]')).toContain('defaultRepeats');
    expect(JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'settings.json'), 'utf8')).defaultRepeats).toBe(3); // the first save wrote the default; 0 never landed
  });

  it('saves a cluster and shows its pre-flight table with the failing host named', async () => {
    const page = await browser.newPage();
    await page.goto(serve.url + '#/settings');
    await page.waitForSelector('[data-testid="cluster-json"]');
    const cluster = {
      name: 'e2e',
      hosts: [{ host: '127.0.0.1', slots: 1, sshUser: null, sshPort: 1, pythonPath: '/usr/bin/python3' }],
      masterAddr: '127.0.0.1',
      masterPort: 29500,
    };
    await page.fill('[data-testid="cluster-json"]', JSON.stringify(cluster));
    await page.click('[data-testid="cluster-save"]');
    await page.waitForSelector('[data-testid="cluster-e2e"]');
    expect(JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'clusters.json'), 'utf8')).clusters[0].cluster.name).toBe('e2e');
    await page.click('[data-testid="cluster-e2e"] >> text=Pre-flight');
    await page.waitForSelector('[data-testid="preflight-e2e"]', { timeout: 60_000 });
    const table = await page.textContent('[data-testid="preflight-e2e"]');
    expect(table).toContain('Not ready');
    expect(table).toContain('ssh-copy-id -p 1'); // port 1: nothing listens, the ssh row fails with its fix
  });

  it("keeps what the user typed when a late settings reply lands: the shell's and the page's loads are one request", async () => {
    // Every settings/get after the first is answered 2 s late, as a slow backend would: before the fix the shell's
    // start-up load and the page's own both went out, and the later reply reset the form mid-edit (a CI failure of
    // the test above: the save sent the old theme).
    const page = await browser.newPage();
    let gets = 0;
    const late = new Set<unknown>();
    await page.routeWebSocket(/\/ws/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        const msg = JSON.parse(String(m)) as { id: unknown; channel: string };
        if (msg.channel === 'settings/get' && ++gets > 1) late.add(msg.id);
        server.send(m);
      });
      server.onMessage((m) => {
        const reply = JSON.parse(String(m)) as { id?: unknown };
        if (late.has(reply.id)) setTimeout(() => ws.send(m), 2000);
        else ws.send(m);
      });
    });
    await page.goto(serve.url + '#/settings');
    await page.waitForSelector('[data-testid="settings-card"]');
    await page.selectOption('[data-testid="settings-theme"]', 'light');
    await page.fill('[data-testid="settings-steps"]', '31');
    await page.waitForTimeout(2500); // a late reply, had there been a second request, has landed by now
    expect(await page.inputValue('[data-testid="settings-steps"]')).toBe('31');
    expect(await page.inputValue('[data-testid="settings-theme"]')).toBe('light');
    await page.click('[data-testid="settings-save"]');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await expect
      .poll(() => JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'settings.json'), 'utf8')))
      .toMatchObject({ theme: 'light', defaultSteps: 31 });
    expect(gets).toBe(1);
  });
});
