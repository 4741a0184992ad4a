// `npm start` says why it cannot open a window (no display, no Electron binary) and points to serve;
// `npm run serve` builds the renderer itself when it is missing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs script without types
import { startProblem } from '../../../scripts/start.mjs';

describe('npm start', () => {
  it('without a display: says so and points to serve', () => {
    expect(startProblem({}, 'linux', '/x/electron')).toMatch(/No display found.*npm run serve/);
  });
  it('without Electronʼs binary: says how to get it, and points to serve', () => {
    expect(startProblem({ DISPLAY: ':0' }, 'linux', null)).toMatch(/Electron's binary is not installed.*ELECTRON_MIRROR.*npm run serve/);
  });
  it('with a display and Electron: no problem (macOS and Windows need no DISPLAY)', () => {
    expect(startProblem({ DISPLAY: ':0' }, 'linux', '/x/electron')).toBeNull();
    expect(startProblem({}, 'darwin', '/x/electron')).toBeNull();
    expect(startProblem({}, 'win32', '/x/electron')).toBeNull();
  });
  it('the real script exits 1 with the message on this display-less machine', () => {
    const env = { ...process.env };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const r = spawnSync(process.execPath, [path.resolve('scripts/start.mjs')], { encoding: 'utf8', env });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^npm start: No display found/);
  });
});
