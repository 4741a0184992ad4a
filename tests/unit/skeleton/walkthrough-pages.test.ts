// scripts/walkthrough-screenshots.ts shoots the app's pages: the list the app routes by
// (renderer/src/page-ids.ts). A page that does not exist (the Cluster page became a section of
// Settings) is refused by name instead of being shot as the page the app falls back to; a page
// that exists is shot at both sizes in both themes. The real script, a real serve and Chromium.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pages } from '../../../renderer/src/page-ids';
import { repoRoot } from '../../helpers/serve';

const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const script = (...args: string[]) =>
  spawnSync(tsx, ['scripts/walkthrough-screenshots.ts', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });

describe('the walk-through screenshots script', () => {
  it('refuses a page the app does not have, naming the pages it has', () => {
    const r = script('cluster');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`no such page: cluster (the pages: ${pages.join(', ')})`);
    expect(pages).not.toContain('cluster');
  });

  it('shoots a page that exists at 1280 and 1920, light and dark', () => {
    const started = Date.now();
    const r = script('settings');
    expect(r.status, r.stderr).toBe(0);
    for (const size of ['1280', '1920'])
      for (const theme of ['light', 'dark']) {
        const file = path.join(repoRoot, 'test-results', 'walkthrough', `settings-${size}-${theme}.png`);
        expect(fs.statSync(file).mtimeMs, file).toBeGreaterThanOrEqual(started - 1000);
      }
  }, 200_000);
});
