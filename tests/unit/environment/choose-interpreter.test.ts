// The interpreter a run uses, in order: explicit, $OFFLOAD_STUDIO_PYTHON, the venv the setup script was
// told to build ($OFFLOAD_STUDIO_ENGINE_VENV, which scripts/setup-engine-venv.sh honours too), the newest
// default engine venv, python3 on PATH. Real folders with real executables; no interpreter is run.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseInterpreter } from '../../../electron/services/environment/choose';
import { findCandidates } from '../../../electron/services/environment/candidates';

function venvWithPython(): string {
  const venv = fs.mkdtempSync(path.join(os.tmpdir(), 'os-venv-'));
  fs.mkdirSync(path.join(venv, 'bin'));
  fs.writeFileSync(path.join(venv, 'bin', 'python3'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return venv;
}
const emptyHome = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-home-'));

describe('chooseInterpreter', () => {
  it('takes the venv $OFFLOAD_STUDIO_ENGINE_VENV names, as the setup script does (a CI clone builds it there)', () => {
    const venv = venvWithPython();
    const choice = chooseInterpreter(null, { OFFLOAD_STUDIO_ENGINE_VENV: venv }, emptyHome());
    expect(choice).toEqual({ python: path.join(venv, 'bin', 'python3'), source: 'venv' });
  });
  it('keeps $OFFLOAD_STUDIO_PYTHON first, and passes over a named venv that has no interpreter', () => {
    const venv = venvWithPython();
    const python = path.join(venv, 'bin', 'python3');
    expect(chooseInterpreter(null, { OFFLOAD_STUDIO_PYTHON: python, OFFLOAD_STUDIO_ENGINE_VENV: emptyHome() }, emptyHome())).toEqual({
      python,
      source: 'env',
    });
    expect(chooseInterpreter(null, { OFFLOAD_STUDIO_ENGINE_VENV: emptyHome() }, emptyHome()).source).toBe('path');
  });
  it('lists that venv among the Setup candidates', async () => {
    const venv = venvWithPython();
    const found = await findCandidates({ dataDir: emptyHome(), env: { OFFLOAD_STUDIO_ENGINE_VENV: venv, PATH: '' }, home: emptyHome() });
    expect(found).toContainEqual({ path: path.join(venv, 'bin', 'python3'), sources: ['app-cache-venv'] });
  });
});
