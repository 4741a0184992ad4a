// The desktop shell itself, through Playwright's Electron harness (_electron): the window opens,
// the page reaches its readiness marker, the contract answers through the preload, the preload
// exposes one object and the page has no Node globals (sandbox + contextIsolation, seen from the
// page itself). Runs where an Electron binary, a display
// and a build exist; otherwise every test is skipped with the reason (no binary can be downloaded
// on the CI VM: ELECTRON_SKIP_BINARY_DOWNLOAD, no network to GitHub's release assets).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElectronApplication, Page } from 'playwright-core';
import { MachineSchema } from '../../electron/contract';
import { repoRoot } from '../helpers/serve';

/** The Electron binary (ELECTRON_PATH, else the electron package's), or why there is none. */
function electronBinary(): { path: string } | { reason: string } {
  const fromEnv = process.env.ELECTRON_PATH;
  if (fromEnv) return fs.existsSync(fromEnv) ? { path: fromEnv } : { reason: `ELECTRON_PATH=${fromEnv} does not exist` };
  try {
    // The electron package exports the binary's path; it throws when its postinstall did not download one.
    const p = createRequire(path.join(repoRoot, 'package.json'))('electron') as unknown;
    if (typeof p === 'string' && fs.existsSync(p)) return { path: p };
    return { reason: `the electron package names no binary that exists (${String(p)})` };
  } catch (error) {
    return {
      reason: `no Electron binary: ${(error as Error).message.split('\n')[0]} (installed with ELECTRON_SKIP_BINARY_DOWNLOAD or without network)`,
    };
  }
}

function skipReason(): string | null {
  const binary = electronBinary();
  if ('reason' in binary) return binary.reason;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'no display (DISPLAY/WAYLAND_DISPLAY unset): run under xvfb-run';
  if (!fs.existsSync(path.join(repoRoot, 'dist/main/main.cjs')) || !fs.existsSync(path.join(repoRoot, 'dist/preload/preload.cjs')))
    return 'not built: run npm run build first';
  return null;
}

const reason = skipReason();
if (reason) console.warn(`[electron-smoke] skipped: ${reason}`);

// Names the page must not have: what nodeIntegration or a leaky preload would put there.
const NODE_GLOBALS = [
  'require',
  'process',
  'module',
  'exports',
  'Buffer',
  'global',
  '__dirname',
  '__filename',
  'setImmediate',
  'ipcRenderer',
];

describe('Electron shell (Playwright _electron)', () => {
  let app: ElectronApplication | undefined;
  let page: Page | undefined;
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-electron-'));

  beforeAll(async () => {
    if (reason) return;
    const { _electron } = await import('playwright-core');
    const binary = electronBinary() as { path: string };
    app = await _electron.launch({
      executablePath: binary.path,
      // A fresh user-data folder per run (Insomnia/Bruno style); as root Chromium needs --no-sandbox.
      args: [repoRoot, `--user-data-dir=${userData}`, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      cwd: repoRoot,
      env: { ...process.env, XDG_CONFIG_HOME: userData, ELECTRON_ENABLE_LOGGING: '1' } as Record<string, string>,
      timeout: 60_000,
    });
    page = await app.firstWindow();
  });

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    fs.rmSync(userData, { recursive: true, force: true });
  });

  it('opens the window and reaches the readiness marker', async (ctx) => {
    if (reason) return ctx.skip(reason);
    await page!.waitForSelector('[data-app-state="loaded"]', { timeout: 60_000 });
    expect(await page!.title()).toMatch(/Offload Studio/);
  });

  it('the contract answers through the preload (hardware/detect is a valid Machine)', async (ctx) => {
    if (reason) return ctx.skip(reason);
    const result = await page!.evaluate(async () => {
      const api = (window as unknown as { offloadStudio: { requests: Record<string, (p: unknown) => Promise<unknown>> } }).offloadStudio;
      return api.requests['hardware/detect']({});
    });
    // The preload returns the wire result ({ ok, value } | { ok: false, error }), as in renderer/src/api/preload-transport.ts.
    expect(result).toMatchObject({ ok: true });
    expect(() => MachineSchema.parse((result as { value: unknown }).value)).not.toThrow();
  });

  it('the preload exposes one object and the page has no Node globals', async (ctx) => {
    if (reason) return ctx.skip(reason);
    const seen = await page!.evaluate((nodeNames) => {
      // A same-origin about:blank frame has a plain global: what the main frame has beyond it was added.
      const frame = document.createElement('iframe');
      document.body.appendChild(frame);
      const plain = new Set(Object.getOwnPropertyNames(frame.contentWindow as Window));
      frame.remove();
      const added = Object.getOwnPropertyNames(window).filter((n) => !plain.has(n));
      const api = (window as unknown as Record<string, unknown>).offloadStudio as Record<string, unknown> | undefined;
      return {
        bridgeObjects: added.filter((n) => {
          const d = Object.getOwnPropertyDescriptor(window, n);
          // contextBridge hands the page frozen copies; ours also carries the request table
          return !!d && typeof d.value === 'object' && d.value !== null && (Object.isFrozen(d.value) || 'requests' in d.value);
        }),
        apiKeys: api ? Object.keys(api).sort() : null,
        nodeGlobals: nodeNames.filter((n) => n in window),
      };
    }, NODE_GLOBALS);
    expect(seen.bridgeObjects).toEqual(['offloadStudio']);
    expect(seen.apiKeys).toEqual(['events', 'requests']);
    expect(seen.nodeGlobals).toEqual([]);
  });

  it('main process: one window, showing the bundled renderer from disk (no remote content)', async (ctx) => {
    if (reason) return ctx.skip(reason);
    const seen = await app!.evaluate(({ BrowserWindow }) => {
      const windows = BrowserWindow.getAllWindows();
      return { count: windows.length, url: windows[0]?.webContents.getURL() ?? '' };
    });
    expect(seen.count).toBe(1);
    expect(seen.url).toMatch(/^file:\/\/.*dist\/renderer\/index\.html/);
  });
});
