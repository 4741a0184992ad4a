// The managed install for real, with a tiny package set (six) instead of 4 GB of torch:
// success swaps the new venv in, a cancel and a failure leave the previous one untouched.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InstallProgress } from '../../../electron/contract';
import { startInstall } from '../../../electron/services/environment';

const BASE = '/root/.pyenv/versions/3.11.7/bin/python3';
const base = fs.existsSync(BASE) ? BASE : 'python3';

function pyHas(python: string, module: string): boolean {
  return spawnSync(python, ['-c', `import ${module}`]).status === 0;
}

describe('engine install', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-install-'));
  const venv = path.join(dataDir, 'engine-venv');
  const python = path.join(venv, 'bin', 'python3');

  it('installs into engine-venv.new and swaps it in, with progress events', async () => {
    const events: InstallProgress[] = [];
    const r = await startInstall({ dataDir, basePython: base, requirements: ['six==1.17.0'], onProgress: (p) => events.push(p) }).result;
    expect(r.log.join('\n')).not.toMatch(/^ERROR/m);
    expect(r).toMatchObject({ ok: true, phase: 'done', venvPath: venv, python });
    expect(fs.existsSync(`${venv}.new`)).toBe(false);
    expect(pyHas(python, 'six')).toBe(true);
    const phases = events.map((e) => e.phase);
    expect(phases[0]).toBe('prepare');
    expect(phases).toEqual(expect.arrayContaining(['venv', 'collecting', 'installing', 'swapping', 'done']));
    const fractions = events.map((e) => e.fraction).filter((f): f is number => f !== null);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b)); // never goes backwards
    // Entry-point scripts point at the final folder, not at engine-venv.new.
    const pip = fs.readFileSync(path.join(venv, 'bin', 'pip'), 'utf8');
    expect(pip).toContain(venv);
    expect(pip).not.toContain('engine-venv.new');
    expect(spawnSync(path.join(venv, 'bin', 'pip'), ['--version']).status).toBe(0);
  }, 180_000);

  it('a cancel mid-install kills pip and leaves the previous environment as it was', async () => {
    let handle: ReturnType<typeof startInstall> | null = null;
    let cancelledAt: string | null = null;
    handle = startInstall({
      dataDir,
      basePython: base,
      requirements: ['packaging==24.2'],
      onProgress: (p) => {
        // Cancel as soon as pip runs (the venv exists, pip is resolving).
        if (!cancelledAt && (p.phase === 'collecting' || p.phase === 'downloading')) {
          cancelledAt = p.phase;
          handle?.cancel();
        }
      },
    });
    // If pip was too quick to report, cancel right after the venv step.
    setTimeout(() => handle?.cancel(), 4000);
    const r = await handle.result;
    if (r.phase === 'done') return; // the install beat the cancel on a fast mirror; nothing to check
    expect(r.phase).toBe('cancelled');
    expect(fs.existsSync(`${venv}.new`)).toBe(false);
    expect(pyHas(python, 'six')).toBe(true);
    expect(handle.cancel()).toBe(false); // already finished
  }, 180_000);

  it('a failed install (offline, --no-index) leaves the previous environment as it was', async () => {
    const r = await startInstall({ dataDir, basePython: base, requirements: ['six==1.17.0'], pipArgs: ['--no-index'] }).result;
    expect(r.ok).toBe(false);
    expect(r.phase).toBe('failed');
    expect(r.message).toMatch(/previous environment is unchanged/);
    expect(r.python).toBe(python);
    expect(fs.existsSync(`${venv}.new`)).toBe(false);
    expect(pyHas(python, 'six')).toBe(true);
  }, 180_000);
});
