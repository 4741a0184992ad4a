// Small figures and missing predictions in the CLI: figures through the one shared formatter (contract formatFigure /
// formatMetricValue), and no figure where there is nothing to measure or predict.
//  - `compare` prints the Compare page's figures: 153.5, not toPrecision(3)'s 153; a CPU run's 0.0084.
//  - `plan` for a machine without a GPU says "matmul — (no GPU)", not "matmul 0 TFLOPS".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatMetricValue, MachineSchema } from '../../../electron/contract';
import { printComparison } from '../../../electron/cli/commands/history';
import { storeWith } from '../history-queries/helpers';

const root = path.resolve(import.meta.dirname, '../../..');

describe('CLI figures', () => {
  it("compare prints the Compare page's figures: 153.5 (not 153) and a CPU run's 0.0084 (not 0)", () => {
    const store = storeWith([
      { id: 'gpu', strategy: 'zero3-offload', tflops: 153.45 },
      { id: 'cpu', strategy: 'zero2-offload', tflops: 0.0084 },
    ]);
    const lines: string[] = [];
    printComparison(store.compare(['gpu', 'cpu']), (l) => lines.push(l));
    store.close();
    const row = (label: string) => lines.find((l) => l.trimStart().startsWith(label) && l.includes(' n='))!;
    expect(row('ZeRO-3 Offload')).toMatch(/\s153\.5\s/);
    expect(row('ZeRO-Offload')).toMatch(/\s0\.0084\s/);
    // the same strings the Compare page's delta table shows (less thousands separators)
    expect(row('ZeRO-3 Offload')).toContain(`repeats: ${formatMetricValue(153.45, 'TFLOPS')}`);
  });

  it('plan on a machine without a GPU says the matmul rate is not there, not 0 TFLOPS', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-figures-'));
    const h200 = MachineSchema.parse(
      JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json'), 'utf8')),
    );
    const noGpu = path.join(dataDir, 'no-gpu.json');
    fs.writeFileSync(noGpu, JSON.stringify({ ...h200, gpus: [], gpuStatus: { driver: 'none', message: 'no NVIDIA driver found' } }));
    const r = spawnSync(
      path.join(root, 'node_modules/.bin/tsx'),
      ['electron/cli/main.ts', 'plan', '--model', 'tiny-llama', '--seq', '32', '--machine', noGpu, '--data-dir', dataDir],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const machine = r.stdout.split('\n').find((l) => l.startsWith('machine: '))!;
    expect(machine).toContain('matmul — (no GPU)');
    expect(machine).not.toMatch(/matmul 0 TFLOPS/);
  });
});
