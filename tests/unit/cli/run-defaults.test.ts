// `run` (and `tune`) take the workload defaults `plan` and the Plan form take, from one
// place (contract workloadDefaultsFor over this machine): on a machine without a GPU seq 512, else its
// GPU count. `run --model tiny-llama --strategy zero3-offload` used to run seq 2048 on a GPU-less
// machine where the Plan page and `plan` said 512. The run goes through the fake runner (a real Python
// child speaking the protocol); the stored spec says what ran.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workloadDefaultsFor, type Machine, type RunSpec } from '../../../electron/contract';
import { openHistory } from '../../../electron/services/history';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-run-defaults-'));
const cli = (args: string[]) =>
  spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
  });
const fakePython = path.join(root, 'tests/reliability/fixtures/fake-python');

describe('run takes the Plan form’s defaults for this machine', () => {
  it('seq, micro batch and GPUs left out are what plan takes here', { timeout: 120_000 }, () => {
    const detected = cli(['detect', '--json', '--no-env']);
    expect(detected.status, detected.stderr).toBe(0);
    const defaults = workloadDefaultsFor(JSON.parse(detected.stdout) as Machine);
    const planned = cli(['plan', '--model', 'tiny-llama', '--json']);
    expect(planned.status, planned.stderr).toBe(0);
    const { workload } = JSON.parse(planned.stdout) as { workload: { seqLen: number; gpus: number } };
    expect([workload.seqLen, workload.gpus]).toEqual([defaults.seqLen, defaults.gpus]);

    // zero3-offload runs on this machine whether or not it has a GPU (a CPU smoke run without one).
    const r = cli([
      'run',
      '--model',
      'tiny-llama',
      '--strategy',
      'zero3-offload',
      '--steps',
      '1',
      '--warmup',
      '0',
      '--python',
      fakePython,
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const [run] = JSON.parse(r.stdout) as { id: string }[];
    const history = openHistory(dataDir);
    try {
      const spec = history.getRun(run.id)!.spec as RunSpec;
      expect([spec.seqLen, spec.gpus]).toEqual([defaults.seqLen, defaults.gpus]);
    } finally {
      history.close();
    }
  });
});
