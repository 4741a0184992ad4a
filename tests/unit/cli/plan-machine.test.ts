// In the CLI, the machine a plan is for is explicit, and `plan` without --machine is a plan
// for THIS machine. It used to send the detected machine to plan/compute as if loaded from a file:
// the text said "(file)", the specs were stamped machineSource 'file', and this machine's own
// measurements and calibration were not used (the notes told you to import them from a file).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanResult } from '../../../electron/contract';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-plan-machine-'));
const cli = (args: string[]) =>
  spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
  });
const h200File = path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json');

describe('plan says which machine it is for', () => {
  it('without --machine: this machine, detected, its specs stamped so, and its own measurements asked for', () => {
    const r = cli(['plan', '--model', 'tiny-llama', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as PlanResult;
    expect(plan.profile.machineSource).toBe('detected');
    for (const s of plan.strategies) if (s.spec.prediction) expect(s.spec.prediction.machineSource).toBe('detected');
    const hostNote = plan.notes.find((n) => n.startsWith('Host figures'));
    expect(hostNote).not.toMatch(/import its measurements/);
    const text = cli(['plan', '--model', 'tiny-llama']);
    expect(text.stdout.split('\n').find((l) => l.startsWith('machine: '))).toMatch(/^machine: .+ \(this machine\); /);
  });

  it('with --machine FILE: a loaded file, not this machine, and its plan does not run here', () => {
    const r = cli(['plan', '--model', 'tiny-llama', '--machine', h200File]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.startsWith('machine: '))).toMatch(
      /^machine: h200-sxm-x86 — 1× NVIDIA H200 \(a loaded file, not this machine: its plan does not run here\); /,
    );
  });
});
