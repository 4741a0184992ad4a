// The cached engine venv (scripts/setup-engine-venv.sh) is trusted only when its marker names the
// current install inputs and bootstrap version: a cache built by older steps is rebuilt.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMarker, readInstallStepsFile } from '../../../electron/services/environment/install-steps';

const script = path.resolve('scripts/setup-engine-venv.sh');

/** A stand-in venv (a python that is the system one) with the given marker text. */
function fakeVenv(marker: string | null): string {
  const venv = fs.mkdtempSync(path.join(os.tmpdir(), 'venv-marker-'));
  fs.mkdirSync(path.join(venv, 'bin'));
  fs.symlinkSync(
    spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim(),
    path.join(venv, 'bin', 'python'),
  );
  fs.writeFileSync(path.join(venv, 'pyvenv.cfg'), 'home = /usr/bin\n');
  if (marker !== null) fs.writeFileSync(path.join(venv, '.offload-studio-complete'), `${marker}\n`);
  return venv;
}

/** Runs the script against `venv`; PYTHON=false makes any rebuild attempt fail at once. */
function runScript(venv: string) {
  return spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, OFFLOAD_STUDIO_ENGINE_VENV: venv, PYTHON: 'false' } });
}

function currentStamp(): string {
  const r = spawnSync('bash', [script, '--stamp'], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('engine venv marker', () => {
  it('the stamp records the install-inputs hash and the current bootstrap version', async () => {
    const stamp = currentStamp();
    const { bootstrapVersion } = await readInstallStepsFile();
    expect(parseMarker(stamp)).toEqual({ hash: expect.stringMatching(/^[0-9a-f]{12}$/), bootstrapVersion });
  });

  it('a venv whose marker matches is used as it is', () => {
    const venv = fakeVenv(currentStamp());
    const r = runScript(venv);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').pop()).toBe(path.join(venv, 'bin', 'python'));
  });

  for (const [what, marker] of [
    ['built by older steps (no bootstrap version)', 'HASH'],
    ['an older bootstrap version', 'HASH bootstrap=1'],
    ['no marker (interrupted)', null],
  ] as const) {
    it(`a venv with ${what} is rebuilt, not trusted`, () => {
      const stamp = currentStamp();
      const venv = fakeVenv(marker === null ? null : marker.replace('HASH', parseMarker(stamp).hash));
      const r = runScript(venv);
      expect(r.status).not.toBe(0); // the rebuild started (and failed on PYTHON=false)
      expect(r.stderr).toMatch(/installing \(steps from/);
      expect(r.stdout.trim()).toBe('');
    });
  }

  it.runIf(process.env.CI === 'true')('CI: the cached engine venv was built by the current bootstrap', async () => {
    const r = spawnSync('bash', [script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const python = r.stdout.trim().split('\n').pop()!;
    const marker = parseMarker(fs.readFileSync(path.join(path.dirname(path.dirname(python)), '.offload-studio-complete'), 'utf8'));
    expect(marker.bootstrapVersion).toBe((await readInstallStepsFile()).bootstrapVersion);
    expect(marker.hash).toBe(parseMarker(currentStamp()).hash);
  });
});
