// Dependencies where they belong: what serve/CLI need at run time, what only builds,
// the `bin` that `npx offload-studio serve` runs, and a tree that installs on the README's Node.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, range: string): boolean };

describe('package.json', () => {
  it('playwright-core is optional at run time (serve/CLI PDF export), node-addon-api only builds', () => {
    expect(pkg.optionalDependencies?.['playwright-core']).toBeTruthy();
    expect(pkg.dependencies['playwright-core']).toBeUndefined();
    expect(pkg.devDependencies['playwright-core']).toBeUndefined();
    expect(pkg.devDependencies['node-addon-api']).toBeTruthy();
    expect(pkg.dependencies['node-addon-api']).toBeUndefined();
    expect(pkg.dependencies.fflate).toBeTruthy(); // the bundle's zip writer
  });
  it('has a bin for the built CLI bundle (serve is its subcommand), which the build writes executable with a shebang', () => {
    expect(pkg.bin).toEqual({ 'offload-studio': 'dist/cli/cli.mjs' });
    const build = fs.readFileSync(path.join(root, 'scripts/build.mjs'), 'utf8');
    expect(build).toContain("['electron/cli/main.ts', 'dist/cli/cli.mjs']");
    expect(build).toContain("banner: { js: '#!/usr/bin/env node' }");
    const cli = path.join(root, 'dist/cli/cli.mjs');
    if (fs.existsSync(cli) && fs.statSync(cli).mtimeMs >= fs.statSync(path.join(root, 'scripts/build.mjs')).mtimeMs) {
      expect(fs.readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
      expect(fs.statSync(cli).mode & 0o111).not.toBe(0);
    }
  });
  it('the lockfile and package.json agree on where each moved dependency lives', () => {
    const rootEntry = lock.packages[''];
    expect(rootEntry.optionalDependencies?.['playwright-core']).toBe(pkg.optionalDependencies['playwright-core']);
    expect(rootEntry.devDependencies['node-addon-api']).toBe(pkg.devDependencies['node-addon-api']);
    expect(rootEntry.bin).toEqual(pkg.bin);
  });
});

describe('installs on the README Node without EBADENGINE', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const m = /Needs Node\.js (\d+)\.(\d+)\+/.exec(readme);
  it('README and engines name the same Node', () => {
    expect(m).not.toBeNull();
    expect(pkg.engines.node).toBe(`>=${m![1]}.${m![2]}`);
  });
  it('every locked package accepts that Node (the oldest the README allows)', () => {
    const node = `${m![1]}.${m![2]}.0`;
    const refusing = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies(node, p.engines.node))
      .map(([name, p]) => `${name}@${p.version} needs node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
