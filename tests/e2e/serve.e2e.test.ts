// The walking skeleton end to end: a real `serve`, a real Chromium, the real Hardware page.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Browser } from 'playwright-core';
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

function cliDetectCpuModel(): string {
  const result = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'tsx'),
    ['electron/cli/main.ts', 'detect', '--json', '--no-env', '--data-dir', serve.dataDir],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { cpu: { model: string } }).cpu.model;
}

describe('serve + Chromium', () => {
  it('shows the detected CPU model on the Hardware page', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(serve.url + '#/hardware');
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.waitForSelector('[data-testid="hardware-loaded"]');
    const shown = (await page.textContent('[data-testid="cpu-model"]'))?.trim();
    expect(shown).toBe(cliDetectCpuModel());
    await page.screenshot({ path: path.join(artifacts, 'hardware-1280x800.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('navigates between the shell pages', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url);
    await page.waitForSelector('[data-app-state="loaded"]');
    for (const label of ['Setup', 'Plan', 'Runs', 'Compare', 'Reports', 'Hardware']) {
      await page.click(`nav >> text=${label}`);
      await expect.poll(async () => (await page.textContent('h1'))?.trim()).toBe(label);
    }
    await page.close();
  });

  it('refuses HTTP requests without the token, or with a wrong one', async () => {
    expect((await fetch(`${serve.origin}/`)).status).toBe(401);
    expect((await fetch(`${serve.origin}/?token=wrong`)).status).toBe(401);
    expect((await fetch(`${serve.origin}/healthz`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${serve.origin}/healthz?token=${serve.token}`)).status).toBe(200);
  });

  it('refuses path traversal in static requests', async () => {
    const res = await fetch(`${serve.origin}/..%2f..%2fpackage.json?token=${serve.token}`);
    expect([400, 404]).toContain(res.status);
    expect(await res.text()).not.toContain('offload-studio');
  });

  it('refuses WebSocket connections without the token or from a foreign Origin', async () => {
    const wsUrl = serve.origin.replace('http', 'ws') + '/ws';
    const outcome = (url: string, headers: Record<string, string> = {}) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('open', () => (ws.close(), resolve('open')));
        ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
        ws.on('error', () => resolve('error'));
      });
    expect(await outcome(wsUrl)).toBe('401');
    expect(await outcome(`${wsUrl}?token=${serve.token}`, { Origin: 'http://evil.example' })).toBe('403');
    expect(await outcome(`${wsUrl}?token=${serve.token}`, { Origin: serve.origin })).toBe('open');
  });

  it('answers contract requests over the WebSocket and names bad fields', async () => {
    const ws = new WebSocket(`${serve.origin.replace('http', 'ws')}/ws?token=${serve.token}`);
    await new Promise((r) => ws.on('open', r));
    const ask = (message: unknown) =>
      new Promise<{ id: number; result: { ok: boolean; value?: unknown; error?: { code: string; field?: string } } }>((resolve) => {
        ws.once('message', (d) => resolve(JSON.parse(String(d))));
        ws.send(JSON.stringify(message));
      });
    const list = await ask({ id: 1, channel: 'runs/list', payload: {} });
    expect(list.result).toEqual({ ok: true, value: { runs: [], total: 0 } });
    const bad = await ask({ id: 2, channel: 'runs/list', payload: { limit: -3 } });
    expect(bad.result.ok).toBe(false);
    expect(bad.result.error?.field).toBe('limit');
    const unknown = await ask({ id: 3, channel: 'shell/exec', payload: { cmd: 'rm -rf /' } });
    expect(unknown.result.error?.code).toBe('unknown_channel');
    ws.close();
  });
});
