// The installer configuration: electron-builder.yml must satisfy electron-builder's own JSON
// schema, and a real `electron-builder --dir` (with a stand-in Electron binary, since Electron
// cannot be downloaded here) must lay the app out so it can run: the runner and presets outside
// app.asar, every .node unpacked, the entry bundle inside, no sources/tests/dev dependencies.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const require = createRequire(import.meta.url);
const yaml = require('js-yaml') as { load(text: string): unknown };
const Ajv = require('ajv') as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown[] } };
const asar = require('@electron/asar') as { listPackage(file: string, o: object): string[] };

const config = yaml.load(fs.readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as Record<string, any>;
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('electron-builder.yml', () => {
  it("validates against app-builder-lib's scheme.json", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/app-builder-lib/scheme.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    const ok = validate(config);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('a schema violation is caught (the check can fail)', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/app-builder-lib/scheme.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate({ ...config, asarUnpackk: ['**/*.node'] })).toBe(false);
  });

  it('targets AppImage + deb for x64 and arm64, dmg, nsis', () => {
    const linux = config.linux.target.map((t: { target: string; arch: string[] }) => `${t.target}:${t.arch.join(',')}`);
    expect(linux).toEqual(['AppImage:x64,arm64', 'deb:x64,arm64']);
    expect(config.mac.target[0].target).toBe('dmg');
    expect(config.win.target[0].target).toBe('nsis');
    for (const icon of [
      config.mac.icon,
      config.win.icon,
      'resources/icons/png/512x512.png',
      'resources/icons/png/16x16.png',
      'resources/icons/png/1024x1024.png',
    ])
      expect(fs.existsSync(path.join(root, icon)), icon).toBe(true);
    expect(pkg.main).toBe('dist/main/main.cjs');
  });
});

const fakeElectronSkip = process.platform !== 'linux' ? 'the stand-in Electron is a Linux shell script' : null;

describe.skipIf(fakeElectronSkip !== null)('electron-builder --dir with a stand-in Electron', () => {
  let out: string;
  let appDir: string;
  let entries: string[];

  beforeAll(() => {
    if (!fs.existsSync(path.join(root, 'dist/main/main.cjs'))) {
      const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`build failed:\n${b.stderr}`);
    }
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-dist-'));
    const electronDist = path.join(tmp, 'electron-dist');
    fs.mkdirSync(electronDist);
    fs.writeFileSync(path.join(electronDist, 'electron'), '#!/bin/sh\necho stand-in electron\n', { mode: 0o755 });
    out = path.join(tmp, 'release');
    const r = spawnSync(process.execPath, ['scripts/dist.mjs', '--dir', '--x64', '--skip-build', `-c.directories.output=${out}`], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, OFFLOAD_STUDIO_ELECTRON_DIST: electronDist },
      timeout: 240_000,
    });
    if (r.status !== 0) throw new Error(`electron-builder --dir failed:\n${r.stdout}\n${r.stderr}`);
    appDir = path.join(out, 'linux-unpacked');
    entries = asar.listPackage(path.join(appDir, 'resources/app.asar'), { isPack: false }).map((e) => e.replace(/\\/g, '/'));
  }, 300_000);
  afterAll(() => {
    if (out) fs.rmSync(path.dirname(out), { recursive: true, force: true });
  });

  it('puts the Python runner and presets outside app.asar', () => {
    for (const f of fs.readdirSync(path.join(root, 'resources/engine')).filter((f) => f.endsWith('.py')))
      expect(fs.existsSync(path.join(appDir, 'resources/engine', f)), f).toBe(true);
    expect(fs.readdirSync(path.join(appDir, 'resources/presets')).length).toBeGreaterThan(0);
    expect(entries.some((e) => e.startsWith('/resources/engine'))).toBe(false);
  });

  it('unpacks every native module (ours and the SQLite prebuild) to app.asar.unpacked', () => {
    const unpacked: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.node')) unpacked.push(path.relative(path.join(appDir, 'resources/app.asar.unpacked'), p));
      }
    };
    walk(path.join(appDir, 'resources/app.asar.unpacked'));
    expect(unpacked.some((p) => p.includes('@photostructure/sqlite/prebuilds/linux-x64/'))).toBe(true);
    if (fs.existsSync(path.join(root, 'native/build/Release')))
      for (const f of fs.readdirSync(path.join(root, 'native/build/Release')).filter((f) => f.endsWith('.node')))
        expect(unpacked).toContain(`native/build/Release/${f}`);
  });

  it('holds the entry bundle and package.json, and no sources, tests or dev dependencies', () => {
    expect(entries).toContain('/dist/main/main.cjs');
    expect(entries).toContain('/dist/preload/preload.cjs');
    expect(entries).toContain('/dist/renderer/index.html');
    expect(entries).toContain('/package.json');
    expect(entries).toContain('/node_modules/@photostructure/sqlite/package.json');
    for (const prefix of [
      '/electron/',
      '/renderer/',
      '/tests/',
      '/bench/',
      '/native/src/',
      '/node_modules/vitest/',
      '/node_modules/typescript/',
      '/node_modules/electron-builder/',
    ])
      expect(
        entries.filter((e) => e.startsWith(prefix)),
        prefix,
      ).toEqual([]);
    expect(fs.existsSync(path.join(appDir, 'offload-studio'))).toBe(true); // linux.executableName
  });
});
