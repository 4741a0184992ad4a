// The engine probe's answers are kept between Setup visits and probed again exactly
// when something they depend on changed: the interpreter file or its link, a package added to its
// site-packages, the probe script, PYTHONPATH-like variables, their age, or an explicit Re-check
// (fresh). A new interpreter in the list is probed; the others answer from the cache.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InterpreterProbe } from '../../../electron/contract';
import { createProbeCache, listInterpreters } from '../../../electron/services/environment';

/** A venv-shaped folder whose bin/python3 prints a version (enough for the real probe to answer fast). */
function fakeVenv(): { dir: string; python: string; site: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cache-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  const site = path.join(dir, 'lib', 'python3.11', 'site-packages');
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(dir, 'pyvenv.cfg'), 'home = /usr/bin\n');
  const python = path.join(dir, 'bin', 'python3');
  fs.writeFileSync(python, '#!/bin/sh\necho "Python 3.11.9"\n', { mode: 0o755 });
  return { dir, python, site };
}

const answer = (p: string, extra: Partial<InterpreterProbe> = {}): InterpreterProbe => ({
  path: p,
  ok: true,
  error: null,
  versionText: 'Python 3.11.9',
  pythonVersion: '3.11.9',
  executable: p,
  prefix: null,
  isVenv: true,
  torch: null,
  deepspeed: null,
  transformers: null,
  build: { ninja: null, cxx: null, libaio: null },
  missing: [],
  ready: true,
  probeMs: 1,
  ...extra,
});

const tick = () => new Promise((r) => setTimeout(r, 25)); // past any mtime granularity

function counted(cacheOptions: Parameters<typeof createProbeCache>[0] = {}) {
  const cache = createProbeCache(cacheOptions);
  let calls = 0;
  const get = (python: string, options?: { fresh?: boolean }, extra: Partial<InterpreterProbe> = {}) =>
    cache.get(python, async () => (calls++, answer(python, extra)), options);
  return { cache, get, calls: () => calls };
}

describe('probe cache: kept while unchanged, probed again when it changed', () => {
  it('a second visit answers from the cache (with when it was probed)', async () => {
    const { python } = fakeVenv();
    const c = counted();
    const first = await c.get(python);
    expect(first).not.toHaveProperty('cachedAt');
    const second = await c.get(python);
    expect(c.calls()).toBe(1);
    expect(second.cachedAt).toMatch(/^\d{4}-/);
    expect(c.cache.stats()).toEqual({ hits: 1, probes: 1 });
  });

  it('a package installed into site-packages (pip adds a folder) invalidates', async () => {
    const { python, site } = fakeVenv();
    const c = counted();
    await c.get(python);
    await tick();
    fs.mkdirSync(path.join(site, 'deepspeed'));
    await c.get(python);
    expect(c.calls()).toBe(2);
    await c.get(python);
    expect(c.calls()).toBe(2);
    await tick();
    fs.rmSync(path.join(site, 'deepspeed'), { recursive: true }); // uninstalled
    await c.get(python);
    expect(c.calls()).toBe(3);
  });

  it('the interpreter file rewritten, or its link pointed elsewhere, invalidates', async () => {
    const { dir, python } = fakeVenv();
    const c = counted();
    await c.get(python);
    await tick();
    fs.writeFileSync(python, '#!/bin/sh\necho "Python 3.12.1"\n', { mode: 0o755 });
    await c.get(python);
    expect(c.calls()).toBe(2);
    // A symlinked interpreter (python → python3) retargeted to another file.
    const link = path.join(dir, 'bin', 'python');
    const other = path.join(dir, 'bin', 'python3.12');
    fs.writeFileSync(other, '#!/bin/sh\necho "Python 3.12.2"\n', { mode: 0o755 });
    fs.symlinkSync(python, link);
    await c.get(link);
    await c.get(link);
    expect(c.calls()).toBe(3);
    fs.unlinkSync(link);
    fs.symlinkSync(other, link);
    await c.get(link);
    expect(c.calls()).toBe(4);
  });

  it('the probe script or a variable the probe reads changing invalidates', async () => {
    const { dir, python } = fakeVenv();
    const script = path.join(dir, 'probe.py');
    fs.writeFileSync(script, 'print(1)\n');
    const env: NodeJS.ProcessEnv = { PYTHONPATH: '' };
    const c = counted({ script, env });
    await c.get(python);
    await c.get(python);
    expect(c.calls()).toBe(1);
    await tick();
    fs.writeFileSync(script, 'print(2)\n');
    await c.get(python);
    expect(c.calls()).toBe(2);
    env.PYTHONPATH = '/opt/extra';
    await c.get(python);
    expect(c.calls()).toBe(3);
  });

  it('Re-check (fresh) and age probe again; a timed-out probe is not kept', async () => {
    const { python } = fakeVenv();
    let now = 1_000_000;
    const c = counted({ maxAgeMs: 60_000, now: () => now });
    await c.get(python);
    await c.get(python, { fresh: true });
    expect(c.calls()).toBe(2);
    now += 30_000;
    await c.get(python);
    expect(c.calls()).toBe(2);
    now += 61_000;
    await c.get(python);
    expect(c.calls()).toBe(3);
    const { python: slow } = fakeVenv();
    await c.get(slow, {}, { ok: false, error: 'probe failed: the probe timed out after 90 s', ready: false });
    await c.get(slow, {}, { ok: false, error: 'probe failed: the probe timed out after 90 s', ready: false });
    expect(c.calls()).toBe(5);
  });

  it('invalidate forgets one interpreter or all', async () => {
    const a = fakeVenv().python;
    const b = fakeVenv().python;
    const c = counted();
    await c.get(a);
    await c.get(b);
    c.cache.invalidate(a);
    await c.get(a);
    await c.get(b);
    expect(c.calls()).toBe(3);
    c.cache.invalidate();
    await c.get(a);
    await c.get(b);
    expect(c.calls()).toBe(5);
  });
});

describe('probe cache kept in a file: answers outlive a restart', () => {
  it('a new cache on the same file answers without probing; a changed interpreter still probes', async () => {
    const { python, site } = fakeVenv();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cache-file-')), 'probe-cache.json');
    const first = counted({ file });
    await first.get(python);
    expect(fs.existsSync(file)).toBe(true);
    const restarted = counted({ file });
    const again = await restarted.get(python);
    expect(restarted.calls()).toBe(0);
    expect(again.pythonVersion).toBe('3.11.9');
    await tick();
    fs.mkdirSync(path.join(site, 'torch'));
    await counted({ file })
      .get(python)
      .then(() => undefined);
    const third = counted({ file });
    await third.get(python);
    expect(third.calls()).toBe(0); // the previous instance stored the new answer
  });
  it('a malformed file or entry is ignored (probed anew), not trusted', async () => {
    const { python } = fakeVenv();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cache-file-'));
    const file = path.join(dir, 'probe-cache.json');
    fs.writeFileSync(file, '{ not json');
    const c = counted({ file });
    await c.get(python);
    expect(c.calls()).toBe(1);
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    const key = Object.keys(stored.entries)[0];
    stored.entries[key].probe = { ready: true }; // not a probe answer
    fs.writeFileSync(file, JSON.stringify(stored));
    const d = counted({ file });
    await d.get(python);
    expect(d.calls()).toBe(1);
  });
});

describe('listInterpreters with the cache (the real probe)', () => {
  it('a second visit probes nothing; a new interpreter in the set is probed alone; fresh probes all', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cache-data-'));
    const a = fakeVenv().python;
    const b = fakeVenv().python;
    const cache = createProbeCache();
    const first = await listInterpreters(dataDir, { extraPaths: [a] }, cache);
    const n = first.candidates.length;
    expect(cache.stats()).toEqual({ hits: 0, probes: n });
    expect(first.candidates.find((c) => c.path === a)?.probe?.pythonVersion).toBe('3.11.9');

    const t = performance.now();
    const second = await listInterpreters(dataDir, { extraPaths: [a] }, cache);
    const secondMs = performance.now() - t;
    expect(cache.stats()).toEqual({ hits: n, probes: n });
    expect(second.candidates.map((c) => c.probe)).toEqual(first.candidates.map((c) => c.probe));
    expect(second.checkedAt! <= new Date().toISOString()).toBe(true);
    expect(secondMs).toBeLessThan(2000);

    const third = await listInterpreters(dataDir, { extraPaths: [a, b] }, cache);
    expect(third.candidates.length).toBe(n + 1);
    expect(cache.stats()).toEqual({ hits: 2 * n, probes: n + 1 });

    await listInterpreters(dataDir, { extraPaths: [a, b], fresh: true }, cache);
    expect(cache.stats()).toEqual({ hits: 2 * n, probes: 2 * n + 2 });
  }, 120_000);
});
