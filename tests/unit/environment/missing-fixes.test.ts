// Only fixes that can work: no `pip install torch==2.11` for a Python that torch 2.11 has no wheel for.
import { describe, expect, it } from 'vitest';
import { minPythonForTorch, missingPieces } from '../../../electron/services/environment/missing';

const facts = (pythonVersion: string) =>
  ({ pythonVersion, torch: null, deepspeed: null, build: { cxx: 'g++', ninja: true, libaio: false }, isVenv: true }) as never;

describe('missing pieces suggest only what can work', () => {
  it('knows torch 2.9+ needs Python 3.10', () => {
    expect(minPythonForTorch('2.11.0')).toEqual([3, 10]);
    expect(minPythonForTorch('2.4.1')).toEqual([3, 9]);
  });
  it('tells a Python 3.9 to use another interpreter instead of a pip command that cannot work', () => {
    const m = missingPieces('/usr/bin/python3.9', facts('3.9.18'), ['torch==2.11.0', 'deepspeed==0.19.8'], 'linux');
    expect(m.map((x) => x.id)).toEqual(['python-version']);
    expect(m[0].what).toMatch(/cannot install torch 2\.11\.0: it needs Python ≥ 3\.10/);
    expect(m[0].fix).not.toMatch(/pip install/);
  });
  it('still gives the pip commands on a Python that can take them', () => {
    const m = missingPieces('/usr/bin/python3.12', facts('3.12.1'), ['torch==2.11.0', 'deepspeed==0.19.8'], 'linux');
    expect(m.find((x) => x.id === 'torch')?.fix).toBe('/usr/bin/python3.12 -m pip install torch==2.11.0');
  });
});
