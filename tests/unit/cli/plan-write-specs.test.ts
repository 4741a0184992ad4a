// `plan --write-specs DIR`: the specs are what the user asked to run. With --micro-batch N every spec
// runs micro N, as `run --micro-batch N` does; without it each spec is the search's pick and the CLI says
// which micro batch each has. (On a leased H100, probes written with --micro-batch 6, 8, 10 and 12 all
// ran the search's micro 8: seven runs of one configuration, read as a boundary search.)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-plan-write-specs-'));
const h200File = path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json');
const plan = (dir: string, extra: string[]) =>
  spawnSync(
    path.join(root, 'node_modules/.bin/tsx'),
    [
      'electron/cli/main.ts',
      'plan',
      '--model',
      'llama-3.2-3b',
      '--seq',
      '2048',
      '--gpus',
      '1',
      '--machine',
      h200File,
      '--all-strategies',
      '--steps',
      '3',
      '--warmup',
      '1',
      '--write-specs',
      path.join(tmp, dir),
      '--data-dir',
      path.join(tmp, 'data'),
      ...extra,
    ],
    { cwd: root, encoding: 'utf8' },
  );
const microOf = (dir: string, id: string) =>
  (JSON.parse(fs.readFileSync(path.join(tmp, dir, `${id}.json`), 'utf8')) as { microBatch: number }).microBatch;

describe('plan --write-specs', () => {
  it('with --micro-batch N writes every strategy at micro N and says so', () => {
    const r = plan('mb12', ['--micro-batch', '12']);
    expect(r.status, r.stderr).toBe(0);
    for (const id of ['gpu-zero1', 'gpu-zero2', 'zero3-offload', 'fsdp2-cpu-offload']) expect(microOf('mb12', id)).toBe(12);
    expect(r.stdout).toMatch(/^wrote 9 run spec\(s\) to .+ \(micro batch 12 each\)$/m);
  });

  it("without --micro-batch writes the search's pick per strategy and names each one's micro batch", () => {
    const r = plan('searched', []);
    expect(r.status, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('wrote '));
    expect(line).toContain(`gpu-zero1 ${microOf('searched', 'gpu-zero1')}`);
    expect(line).toContain("(the search's; give --micro-batch to write them at one)");
  });
});
