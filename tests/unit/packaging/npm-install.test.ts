// npm install: the README's way on when Electron's binary download fails, and a lock file that
// resolving package.json again leaves unchanged.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../history-queries/helpers';

describe("npm install: when Electron's binary download fails, the README says what to do", () => {
  it('names the failing step and the three ways on: again online, ELECTRON_MIRROR, or ELECTRON_SKIP_BINARY_DOWNLOAD with serve', async () => {
    const fs = await import('node:fs');
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8').replace(/\s+/g, ' ');
    const at = readme.indexOf('node_modules/electron/install.js');
    expect(at).toBeGreaterThan(0);
    const advice = readme.slice(at, at + 600);
    expect(advice).toMatch(/again online/);
    expect(advice).toMatch(/ELECTRON_MIRROR=\S+ npm install/);
    expect(advice).toMatch(/ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm install`, then `npm run serve`/);
    // npm start, after such an install, says the same (scripts/start.mjs).
    // @ts-expect-error plain .mjs script without types
    const { startProblem } = await import('../../../scripts/start.mjs');
    expect(startProblem({ DISPLAY: ':0' }, 'linux', null)).toMatch(/again online.*ELECTRON_MIRROR.*npm run serve/);
  });
});

describe('npm install leaves package-lock.json unchanged', () => {
  it('resolving package.json again (npm install --package-lock-only, in a copy) writes the same lock file', async (ctx) => {
    const fs = await import('node:fs');
    const root = path.resolve(import.meta.dirname, '../../..');
    const dir = tmpDir();
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(root, f), path.join(dir, f));
    const r = spawnSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (r.status !== 0 && /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|offline/i.test(r.stderr)) ctx.skip(); // no registry and no cache here
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).toBe(
      fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'),
    );
  }, 200_000);
});
