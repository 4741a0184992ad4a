// The CLI names strategies by their one display name, the id beside it (plan, runs, compare).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { strategyLabel } from '../../../electron/contract';
import { tmpDir } from '../history-queries/helpers';

describe('one display name per strategy in the CLI, the id beside it', () => {
  const root = path.resolve(import.meta.dirname, '../../..');
  const cli = (args: string[], dataDir: string) =>
    spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
      cwd: root,
      encoding: 'utf8',
    });
  it('plan, runs and compare print "Display name (id)" or the display name', () => {
    const dataDir = tmpDir();
    const plan = cli(
      [
        'plan',
        '--model',
        'llama-3.1-8b',
        '--seq',
        '2048',
        '--micro-batch',
        '1',
        '--gpus',
        '1',
        '--machine',
        path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json'),
      ],
      dataDir,
    );
    expect(plan.status, plan.stderr).toBe(0);
    for (const id of ['superoffload', 'zero3-offload', 'fsdp2-cpu-offload']) expect(plan.stdout).toContain(`${strategyLabel(id)} (${id})`);
    expect(plan.stdout).toMatch(/^recommended: .+ \([a-z0-9-]+, micro batch/m);
    expect(cli(['load-samples'], dataDir).status).toBe(0);
    const runs = cli(['runs', '--strategy', 'superoffload'], dataDir);
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toContain(`${strategyLabel('superoffload')} (superoffload)`);
    const listed = JSON.parse(cli(['runs', '--json'], dataDir).stdout) as { id: string; strategy: string; sweepId: string | null }[];
    const ids = ['superoffload', 'gpu-zero2'].map((s) => listed.find((r) => r.strategy === s)!.id);
    const compare = cli(['compare', ...ids], dataDir);
    expect(compare.status, compare.stderr).toBe(0);
    expect(compare.stdout).toContain(strategyLabel('superoffload'));
    expect(compare.stdout).toContain(strategyLabel('gpu-zero2'));
  });
});
