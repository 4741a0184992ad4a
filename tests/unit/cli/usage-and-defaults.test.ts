// The CLI's edges, through the real process on this machine:
//  - `plan` takes the Plan form's defaults for the machine planned for (contract workloadDefaultsFor):
//    its GPU count, and on a machine without a GPU seq 512 — not 2048 where the form says 512;
//  - a usage error exits 2 in every command: a required flag left out, a value the CLI or the backend
//    refuses (unknown model, strategy or measurement), a strategy this machine cannot run;
//  - `run --strategy gpu-zero1` without a GPU is refused and the message says how to force it; with
//    --force it runs on the CPU (here through the fake runner: the real one ran it on this VM).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CPU_DEFAULT_MAX_SEQ, MachineSchema, workloadDefaultsFor } from '../../../electron/contract';

const root = path.resolve(import.meta.dirname, '../../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-usage-'));
const cli = (args: string[]) => spawnSync(tsx, ['electron/cli/main.ts', ...args, '--data-dir', dataDir], { cwd: root, encoding: 'utf8' });

const h200File = path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json');
const h200 = MachineSchema.parse(JSON.parse(fs.readFileSync(h200File, 'utf8')));
const noGpuFile = path.join(dataDir, 'no-gpu.json');
fs.writeFileSync(
  noGpuFile,
  JSON.stringify({ ...h200, gpus: [], gpuStatus: { driver: 'none', message: 'no NVIDIA driver found (nvidia-smi is not on PATH)' } }),
);

describe('plan defaults are the Plan form’s, for the machine planned for', () => {
  it('without a GPU: seq 512, micro batch 1, 1 GPU', () => {
    const r = cli(['plan', '--model', 'tiny-llama', '--machine', noGpuFile, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const { workload } = JSON.parse(r.stdout);
    expect([workload.seqLen, workload.microBatch, workload.gpus]).toEqual([CPU_DEFAULT_MAX_SEQ, 1, 1]);
    expect(workloadDefaultsFor({ gpus: [] })).toEqual({ seqLen: 512, microBatch: 1, gpus: 1 });
  });
  it('on a GPU host: its GPU count and seq 2048; a flag given wins', () => {
    const r = cli(['plan', '--model', 'llama-3.2-1b', '--machine', h200File, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const { workload } = JSON.parse(r.stdout);
    expect([workload.seqLen, workload.gpus]).toEqual([2048, h200.gpus.length]);
    const given = JSON.parse(cli(['plan', '--model', 'tiny-llama', '--machine', noGpuFile, '--seq', '64', '--json']).stdout);
    expect(given.workload.seqLen).toBe(64);
  });
});

describe('usage errors exit 2 in every command', () => {
  const cases: [string, string[], RegExp][] = [
    ['run without --model/--strategy', ['run', '--model', 'tiny-llama'], /--model and --strategy are required/],
    ['tune without --model', ['tune'], /--model is required/],
    ['measure --only of an unknown kind', ['measure', '--only', 'gpuFlops'], /--only: unknown measurement 'gpuFlops'/],
    ['plan of an unknown model', ['plan', '--model', 'no-such-model', '--machine', noGpuFile], /unknown model 'no-such-model'/],
    [
      'run of an unknown strategy',
      ['run', '--model', 'tiny-llama', '--strategy', 'zero3-ofload', '--seq', '32'],
      /unknown strategy 'zero3-ofload'/,
    ],
    [
      'run with a switch value it cannot read (no run starts)',
      ['run', '--model', 'tiny-llama', '--strategy', 'zero3-offload', '--activation-checkpointing', '2'],
      /run takes no arguments besides flags: '2'/,
    ],
  ];
  for (const [what, args, message] of cases)
    it(what, () => {
      const r = cli(args);
      expect(r.stderr).toMatch(message);
      expect(r.status, r.stderr).toBe(2);
    });
});

const hasGpu = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8' }).status === 0;

describe.skipIf(hasGpu)('run --strategy gpu-zero1 on this machine without a GPU', () => {
  it('is refused (exit 2) with what can run and how to force it', () => {
    const r = cli(['run', '--model', 'tiny-llama', '--strategy', 'gpu-zero1', '--seq', '32', '--steps', '1']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/gpu-zero1\) cannot run on this machine: no GPU/);
    expect(r.stderr).toMatch(/What can run here: zero2-offload/);
    expect(r.stderr).toMatch(/CPU anyway .* with run --force/);
    expect(r.stdout).not.toMatch(/started/);
  });
  it('SuperOffload, which asserts CUDA, is refused without the offer to force it', () => {
    const r = cli(['run', '--model', 'tiny-llama', '--strategy', 'superoffload', '--seq', '32', '--force']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/superoffload\) cannot run on this machine/);
    expect(r.stderr).not.toMatch(/--force/);
  });
  it('with --force it runs on the CPU', () => {
    const fakePython = path.join(root, 'tests/reliability/fixtures/fake-python');
    const r = cli([
      'run',
      '--model',
      'tiny-llama',
      '--strategy',
      'gpu-zero1',
      '--seq',
      '32',
      '--steps',
      '2',
      '--warmup',
      '1',
      '--force',
      '--python',
      fakePython,
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const [run] = JSON.parse(r.stdout) as { strategy: string; status: string }[];
    expect(run).toMatchObject({ strategy: 'gpu-zero1', status: 'completed' });
  }, 120_000);
});
