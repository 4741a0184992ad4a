// An interpreter the OS manages (PEP 668: Debian 12's /usr/bin/python3) refuses `pip install`
// ("externally-managed-environment"), so its missing pieces are not offered as pip commands into
// it: one piece says why, and points to the app's own environment.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { missingPieces, probeInterpreter } from '../../../electron/services/environment';

const REQUIREMENTS = ['torch==2.11.0', 'deepspeed==0.19.8'];
const facts = { pythonVersion: '3.11.2', torch: null, deepspeed: null, build: { ninja: null, cxx: null, libaio: null }, isVenv: false };

describe('missing pieces of a system-managed interpreter', () => {
  it('no pip command into it: one piece names PEP 668 and the way out', () => {
    const pieces = missingPieces('/usr/bin/python3', { ...facts, externallyManaged: true }, REQUIREMENTS, 'linux');
    expect(pieces.filter((m) => m.fix.includes('-m pip install'))).toEqual([]);
    const managed = pieces.filter((m) => m.id === 'externally-managed');
    expect(managed).toHaveLength(1);
    expect(managed[0].severity).toBe('required');
    expect(managed[0].what).toMatch(
      /PyTorch is not installed; DeepSpeed is not installed — and pip cannot install into \/usr\/bin\/python3/,
    );
    expect(managed[0].what).toContain('externally-managed-environment');
    expect(managed[0].fix).toMatch(/Create the app's own environment/);
    // What is not pip stays as it was: the compiler comes from apt either way.
    expect(pieces.map((m) => m.id)).not.toContain('torch');
  });
  it('the same Python in a venv, or one the OS does not manage, keeps its pip commands', () => {
    for (const f of [{ ...facts, externallyManaged: false }, { ...facts, externallyManaged: true, isVenv: true }, facts]) {
      const pieces = missingPieces('/opt/py/bin/python3', f, REQUIREMENTS, 'linux');
      expect(pieces.find((m) => m.id === 'torch')?.fix).toBe('/opt/py/bin/python3 -m pip install torch==2.11.0');
      expect(pieces.map((m) => m.id)).not.toContain('externally-managed');
    }
  });
});

// The real probe on this machine's system Python, where it carries the PEP 668 marker (Debian 12, CI).
const marked = (() => {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import sysconfig; print(sysconfig.get_path("stdlib"))'], { encoding: 'utf8' });
  return r.status === 0 && fs.existsSync(path.join(r.stdout.trim(), 'EXTERNALLY-MANAGED'));
})();
const hasTorch = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!marked || hasTorch)('probe of a PEP 668 system Python (this machine)', () => {
  it('reports it managed, and suggests no pip install into it', async () => {
    const probe = await probeInterpreter('/usr/bin/python3');
    expect(probe.externallyManaged).toBe(true);
    expect(probe.missing.map((m) => m.fix).join('\n')).not.toContain('/usr/bin/python3 -m pip install');
    expect(probe.missing.map((m) => m.id)).toContain('externally-managed');
  }, 60_000);
});
