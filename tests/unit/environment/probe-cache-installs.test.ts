// A kept probe answer does not outlive an install into the interpreter's environment, whatever the
// package folder's mtime says: after scripts/setup-engine-venv.sh, Setup still listed its venv
// without torch and DeepSpeed until Re-check. The folder's time is a weak sign (coarse or cached
// on network, shared and some VM file systems; put back by a copy that keeps times), so the
// fingerprint also holds the folder's entries and the engine venv's completion marker.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InterpreterProbe } from '../../../electron/contract';
import { createProbeCache } from '../../../electron/services/environment';

function fakeVenv(): { dir: string; python: string; site: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cache-installs-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  const site = path.join(dir, 'lib', 'python3.11', 'site-packages');
  fs.mkdirSync(site, { recursive: true });
  fs.mkdirSync(path.join(site, 'pip'));
  fs.writeFileSync(path.join(dir, 'pyvenv.cfg'), 'home = /usr/bin\n');
  const python = path.join(dir, 'bin', 'python3');
  fs.writeFileSync(python, '#!/bin/sh\necho "Python 3.11.9"\n', { mode: 0o755 });
  return { dir, python, site };
}

/** A probe that reports torch once torch's metadata is in site-packages, as probe.py does. */
function probing(site: string) {
  let calls = 0;
  const probe = async (): Promise<InterpreterProbe> => {
    calls++;
    const torch = fs.existsSync(path.join(site, 'torch-2.11.0.dist-info'))
      ? { version: '2.11.0', cuda: '12.8', cudaAvailable: false, devices: [], error: null }
      : null;
    return {
      path: '',
      ok: true,
      error: null,
      versionText: 'Python 3.11.9',
      pythonVersion: '3.11.9',
      executable: null,
      prefix: null,
      isVenv: true,
      torch,
      deepspeed: null,
      transformers: null,
      build: { ninja: null, cxx: null, libaio: null },
      missing: [],
      ready: false,
      probeMs: 1,
    };
  };
  return { probe, calls: () => calls };
}

describe('probe cache after an install', () => {
  it('probes again when packages were added though the folder kept its mtime', async () => {
    const { python, site } = fakeVenv();
    const { probe, calls } = probing(site);
    const cache = createProbeCache();
    expect((await cache.get(python, probe)).torch).toBeNull();
    const before = fs.statSync(site);
    fs.mkdirSync(path.join(site, 'torch'));
    fs.mkdirSync(path.join(site, 'torch-2.11.0.dist-info'));
    fs.utimesSync(site, before.atime, before.mtime); // the time a coarse or cached file system shows
    const after = await cache.get(python, probe);
    expect(calls()).toBe(2);
    expect(after.torch?.version).toBe('2.11.0');
    expect(after).not.toHaveProperty('cachedAt');
  });

  it('probes again when the engine venv is marked complete (the last thing its installers write)', async () => {
    const { dir, python, site } = fakeVenv();
    const { probe, calls } = probing(site);
    const cache = createProbeCache();
    await cache.get(python, probe);
    await cache.get(python, probe);
    expect(calls()).toBe(1);
    fs.writeFileSync(path.join(dir, '.offload-studio-complete'), 'abc bootstrap=2\n');
    await cache.get(python, probe);
    expect(calls()).toBe(2);
  });
});
