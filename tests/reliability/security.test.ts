// Security checks against the real thing: the headless server over raw sockets (token, Origin,
// path traversal exactly as sent), the constant-time token comparison (code level: no timing
// test, it would be flaky), the renderer in Chromium (no Node reachable, hostile tags shown as
// text), the reports escaping hostile strings, and the Electron window's options + CSP.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { tokensEqual } from '../../electron/server/auth';
import { createBackend } from '../../electron/services/backend';
import { openHistory } from '../../electron/services/history';
import { mainWindowWebPreferences } from '../../electron/main/window-options';
import { launchChromium } from '../helpers/browser';
import { WsClient, rawHttp, repoRoot, spawnServe, tmpDir, type ServeProcess } from './helpers';

const HOSTILE = ['<img src=x onerror=alert(1)>', '"><script>alert(2)</script>', '../../etc/passwd', 'rtl\u202eexe.txt'];

/** A data folder with one finished run whose tags and notes are hostile strings. */
function seedHostile(dataDir: string): string {
  const h = openHistory(dataDir);
  const id = 'r-hostile-1';
  h.createRun({
    id,
    sweepId: null,
    repeatIndex: 0,
    model: 'tiny-llama',
    strategy: 'zero3-offload',
    engine: 'deepspeed',
    steps: 2,
    warmup: 1,
    tags: HOSTILE,
    notes: '<svg onload=alert(3)>',
  });
  h.startRun(id, {});
  h.appendSamples(
    id,
    [1, 2, 3].map((step) => ({
      step,
      warmup: step === 1,
      stepSeconds: 0.5,
      tflopsPerGpu: 1,
      tokensPerSecond: 64,
      loss: 5,
      gpuAllocatedBytes: null,
      gpuReservedBytes: null,
      gpuPeakBytes: null,
      hostRssBytes: 1e8,
    })),
  );
  h.finishRun(id, {
    status: 'completed',
    result: { stepSeconds: { median: 0.5 }, tflopsPerGpu: { median: 1 }, tokensPerSecond: { median: 64 } },
  });
  h.close();
  return id;
}

let serve: ServeProcess;
let runId: string;
beforeAll(async () => {
  const dataDir = tmpDir('os-sec-');
  runId = seedHostile(dataDir);
  serve = await spawnServe(dataDir);
});
afterAll(async () => serve?.stop());

describe('security: headless server', () => {
  const get = (target: string, headers = '') =>
    rawHttp(serve.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}\r\n`);

  it('refuses requests without the token, with a wrong one, or one of another length', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/?token=wrong')).status).toBe(401);
    expect((await get(`/?token=${serve.token}x`)).status).toBe(401);
    expect((await get('/healthz', 'Authorization: Bearer nope\r\n')).status).toBe(401);
    expect((await get('/healthz', `Cookie: offload_studio_token=${serve.token.slice(0, -1)}\r\n`)).status).toBe(401);
    expect((await get(`/healthz?token=${serve.token}`)).status).toBe(200);
  });

  it('refuses path traversal sent raw: encoded, double-encoded, absolute, backslashes', async () => {
    const secret = fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8').slice(0, 40);
    const targets = [
      '/../package.json',
      '/../../package.json',
      '/..%2fpackage.json',
      '/..%2f..%2fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
      '/%252e%252e%252fpackage.json',
      '/..%252f..%252fpackage.json',
      '/%2e%2e%5cpackage.json',
      '/..\\..\\package.json',
      `/${repoRoot}/package.json`,
      `//${repoRoot.slice(1)}/package.json`,
      '/%2fetc%2fpasswd',
      '/etc/passwd',
      '/..%00/package.json',
      '/%c0%ae%c0%ae/package.json',
      `/assets/../../../${path.basename(repoRoot)}/package.json`,
    ];
    for (const target of targets) {
      const r = await get(`${target}${target.includes('?') ? '&' : '?'}token=${serve.token}`);
      expect([200, 400, 404], target).toContain(r.status);
      expect(r.text, target).not.toContain(secret);
      expect(r.text, target).not.toMatch(/root:x:0:0/);
      // A 200 is the SPA fallback (index.html), never the file asked for.
      if (r.status === 200) expect(r.text, target).toContain('<!doctype html');
    }
  });

  it('refuses WebSocket upgrades without the token, with a wrong one, or from a foreign Origin', async () => {
    await expect(WsClient.connect(serve.origin, 'wrong')).rejects.toThrow(/401/);
    await expect(WsClient.connect(serve.origin, serve.token, { Origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(WsClient.connect(serve.origin, serve.token, { Origin: 'null' })).rejects.toThrow(/403/);
    const ok = await WsClient.connect(serve.origin, serve.token);
    expect((await ok.request('app/info', {})).ok).toBe(true);
    ok.close();
  });

  it('compares tokens in constant time: timingSafeEqual on equal-length digests (code level)', () => {
    const source = fs.readFileSync(path.join(repoRoot, 'electron/server/auth.ts'), 'utf8');
    const body = /export function tokensEqual[\s\S]*?\n}/.exec(source)?.[0] ?? '';
    expect(body).toMatch(/createHash\('sha256'\)\.update\(given\)\.digest\(\)/);
    expect(body).toMatch(/createHash\('sha256'\)\.update\(expected\)\.digest\(\)/);
    expect(body).toMatch(/timingSafeEqual\(a, b\)/);
    expect(body).not.toMatch(/===|!==|==|\.length/);
    // And it still works for every length (timingSafeEqual alone throws on unequal lengths).
    expect(tokensEqual('a', 'a'.repeat(100))).toBe(false);
    expect(tokensEqual('', serve.token)).toBe(false);
    expect(tokensEqual(serve.token, serve.token)).toBe(true);
    // The server uses it for HTTP and for the upgrade.
    const server = fs.readFileSync(path.join(repoRoot, 'electron/server/index.ts'), 'utf8');
    expect(server.match(/tokensEqual\(given, token\)/g)?.length).toBe(2);
    expect(server).not.toMatch(/given\s*[!=]==?\s*token/);
  });
});

describe('security: renderer', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  it(
    'in Chromium against serve: no require/process/module, no preload object; hostile tags on the Runs page stay text',
    { timeout: 60_000 },
    async () => {
      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()));
      await page.goto(`${serve.url}#/runs`);
      await page.waitForSelector('[data-app-state="loaded"]');
      const globals = await page.evaluate(() => ({
        require: typeof (globalThis as { require?: unknown }).require,
        process: typeof (globalThis as { process?: unknown }).process,
        module: typeof (globalThis as { module?: unknown }).module,
        preload: 'offloadStudio' in window,
      }));
      expect(globals).toEqual({ require: 'undefined', process: 'undefined', module: 'undefined', preload: false });
      await page.waitForSelector('[data-testid="runs-page"]');
      const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
      await row.waitFor({ timeout: 20_000 });
      // The row lists the tags; its editor holds them as the input's value: literal text both times.
      expect(await row.innerText()).toContain('<img src=x onerror=alert(1)>');
      await row.click();
      await page.waitForSelector('[data-testid="run-editor"]');
      expect(await page.inputValue('[data-testid="run-tags"]')).toContain('"><script>alert(2)</script>');
      expect(await page.inputValue('[data-testid="run-notes"]')).toBe('<svg onload=alert(3)>');
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      expect(await page.locator('script:has-text("alert(2)")').count()).toBe(0);
      await page.waitForTimeout(500);
      expect(dialogs).toEqual([]);
      await page.close();
    },
  );

  it('the HTML report escapes hostile tags and notes (no live markup)', { timeout: 60_000 }, async () => {
    const out = tmpDir('os-sec-report-');
    const backend = createBackend({ dataDir: serve.dataDir, transport: 'cli' });
    try {
      const file = path.join(out, 'report.html');
      await backend.invoke('reports/export', { runIds: [runId], format: 'html', path: file });
      const html = fs.readFileSync(file, 'utf8');
      expect(html).not.toContain('<img src=x onerror');
      expect(html).not.toContain('<script>alert(2)');
      expect(html).not.toContain('<svg onload');
      expect(html).toMatch(/&lt;img src=x onerror=alert\(1\)&gt;/);
    } finally {
      await backend.close();
    }
  });

  it('Electron window options: contextIsolation, sandbox, no Node integration, webSecurity; main.ts uses them', () => {
    expect(mainWindowWebPreferences('/p.cjs')).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: '/p.cjs',
    });
    const main = fs.readFileSync(path.join(repoRoot, 'electron/main/main.ts'), 'utf8');
    expect(main).toMatch(/webPreferences: mainWindowWebPreferences\(/);
    expect(main).not.toMatch(/nodeIntegration:\s*true|sandbox:\s*false|contextIsolation:\s*false|webSecurity:\s*false/);
  });

  it("CSP of renderer/index.html: script-src 'self', no 'unsafe-eval'/'unsafe-inline' scripts", () => {
    const html = fs.readFileSync(path.join(repoRoot, 'renderer/index.html'), 'utf8');
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(csp).toMatch(/(^|;)\s*script-src 'self'\s*(;|$)/);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toMatch(/object-src 'none'/);
    const built = path.join(repoRoot, 'dist/renderer/index.html');
    if (fs.existsSync(built)) expect(fs.readFileSync(built, 'utf8')).not.toContain('unsafe-eval');
  });

  const electronPath = process.env.ELECTRON_PATH;
  const xvfb = spawnSync('sh', ['-c', 'command -v xvfb-run'], { encoding: 'utf8' }).stdout.trim();
  it.skipIf(!electronPath || !xvfb)(
    `a real Electron window (${electronPath ? (xvfb ? electronPath : 'skipped: xvfb-run missing') : 'skipped: no Electron binary here (ELECTRON_SKIP_BINARY_DOWNLOAD); set ELECTRON_PATH'})`,
    { timeout: 120_000 },
    () => {
      // Electron's own check: in the page, typeof require must be 'undefined' and the bridge present.
      const probe = path.join(tmpDir('os-electron-'), 'probe.cjs');
      fs.writeFileSync(
        probe,
        `const { app, BrowserWindow } = require('electron');
const { mainWindowWebPreferences } = require(${JSON.stringify(path.join(repoRoot, 'dist/main/window-options.cjs'))});
app.whenReady().then(async () => {
  const w = new BrowserWindow({ show: false, webPreferences: mainWindowWebPreferences(${JSON.stringify(path.join(repoRoot, 'dist/preload/preload.cjs'))}) });
  await w.loadURL('data:text/html,<p>x</p>');
  const r = await w.webContents.executeJavaScript('JSON.stringify({ require: typeof require, process: typeof process, bridge: typeof window.offloadStudio })');
  console.log('PROBE ' + r); app.quit();
});`,
      );
      const r = spawnSync(xvfb, ['-a', electronPath!, probe], { encoding: 'utf8', timeout: 100_000 });
      const line = /PROBE (.*)/.exec(r.stdout)?.[1];
      expect(line, r.stderr).toBeDefined();
      expect(JSON.parse(line!)).toEqual({ require: 'undefined', process: 'undefined', bridge: 'object' });
    },
  );
});
