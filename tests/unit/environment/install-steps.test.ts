// The install sequence is data (resources/engine/install-steps.json). The app expands it in
// TypeScript, scripts/setup-engine-venv.sh through resources/engine/install_steps.py: both must
// give the same pip argument vectors, bootstrap first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  engineInstallPlan,
  expandInstallSteps,
  isTorchRequirement,
  parseInstallStepsFile,
  parseMarker,
  readInstallStepsFile,
} from '../../../electron/services/environment/install-steps';
import { explainPipFailure } from '../../../electron/services/environment/install';
import { parseRequirements } from '../../../electron/services/environment/requirements';

const engineDir = path.resolve('resources/engine');
const requirements = parseRequirements(fs.readFileSync(path.join(engineDir, 'requirements.txt'), 'utf8'));

describe('install steps', () => {
  it('bootstraps pinned pip, setuptools and wheel before torch, then the rest without build isolation', async () => {
    const plan = await engineInstallPlan(requirements);
    expect(plan.steps.map((s) => s.name)).toEqual(['bootstrap', 'torch', 'engine']);
    const [bootstrap, torch, engine] = plan.steps;
    expect(bootstrap.args).toEqual(['--upgrade', '-r', path.join(engineDir, 'bootstrap-requirements.txt')]);
    expect(torch.args).toEqual(requirements.filter((r) => r.startsWith('torch==')));
    expect(torch.args).toHaveLength(1);
    expect(engine.args[0]).toBe('--no-build-isolation');
    expect(engine.args).toContain('deepspeed==0.19.8');
    expect(engine.args.some((a) => a.startsWith('torch=='))).toBe(false);
    expect(engine.env).toEqual({ DS_BUILD_OPS: '0' });
  });

  it('pins exactly what the bootstrap needs, within what torch accepts', () => {
    const pins = parseRequirements(fs.readFileSync(path.join(engineDir, 'bootstrap-requirements.txt'), 'utf8'));
    expect(pins.map((p) => p.split('==')[0]).sort()).toEqual(['pip', 'setuptools', 'wheel']);
    for (const p of pins) expect(p).toMatch(/^[a-z]+==\d+(\.\d+)+$/);
    // torch 2.11 requires setuptools<82: a newer pin would be downgraded by the torch step.
    const setuptools = Number(
      pins
        .find((p) => p.startsWith('setuptools'))!
        .split('==')[1]
        .split('.')[0],
    );
    expect(setuptools).toBeLessThan(82);
  });

  it('the script and the app expand the same file to the same argument vectors', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steps-'));
    const cases: string[][] = [requirements, ['six==1.17.0'], ['torch==2.11.0', '/tmp/pkg-0.1.tar.gz']];
    const file = await readInstallStepsFile();
    for (const reqs of cases) {
      const reqFile = path.join(dir, 'req.txt');
      fs.writeFileSync(reqFile, reqs.join('\n') + '\n');
      const r = spawnSync('python3', [path.join(engineDir, 'install_steps.py'), 'plan', '--requirements', reqFile], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(expandInstallSteps(file, reqs, engineDir));
    }
  });

  it('skips a step with nothing to install and keeps torch-named packages apart from torch', () => {
    const file = parseInstallStepsFile(fs.readFileSync(path.join(engineDir, 'install-steps.json'), 'utf8'));
    const plan = expandInstallSteps(file, ['six==1.17.0', 'torchvision==0.26.0'], '/e');
    expect(plan.steps.map((s) => s.name)).toEqual(['bootstrap', 'engine']);
    expect(isTorchRequirement('torch==2.11.0')).toBe(true);
    expect(isTorchRequirement('torch>=2.4')).toBe(true);
    expect(isTorchRequirement('torchvision==0.26.0')).toBe(false);
    expect(isTorchRequirement('torch-geometric')).toBe(false);
  });

  it('refuses a malformed steps file, naming what is wrong', () => {
    expect(() => parseInstallStepsFile('{"bootstrapVersion": 1, "steps": []}')).toThrow(/steps/);
    expect(() => parseInstallStepsFile('{"steps": [{"name": "x", "label": "y"}]}')).toThrow(/bootstrapVersion/);
  });

  it('the marker records the bootstrap version', () => {
    expect(parseMarker('d3d529a3afe1 bootstrap=2\n')).toEqual({ hash: 'd3d529a3afe1', bootstrapVersion: 2 });
    expect(parseMarker('d3d529a3afe1')).toEqual({ hash: 'd3d529a3afe1', bootstrapVersion: null }); // built by old steps
  });

  it("names pip's failures with what to do", () => {
    expect(
      explainPipFailure([
        "WARNING: Retrying (Retry(total=0...)) after connection broken by 'NewConnectionError(...: Failed to establish a new connection: [Errno 111] Connection refused')': /simple/pip/",
        'ERROR: Could not find a version that satisfies the requirement pip==26.3',
      ]),
    ).toMatch(/could not reach the package index.*PIP_INDEX_URL/);
    expect(explainPipFailure(['ERROR: No matching distribution found for torch==2.11.0'])).toMatch(
      /no distribution for torch==2.11.0.*3\.10 to 3\.13/,
    );
    expect(explainPipFailure(["error: invalid command 'bdist_wheel'"])).toMatch(/bootstrap/);
    expect(explainPipFailure(['Successfully installed six'])).toBeNull();
  });
});
