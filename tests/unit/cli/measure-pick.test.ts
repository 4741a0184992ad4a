// `measure --list` and `measure --use`: on a busy machine one measurement can be far from the others
// (CPU Adam 1.32 → 0.39 → 1.13 G params/s); the user sees which one plans use and picks another, and
// `plan` says which it used. In-process against a real backend and a real measurements.json.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../../electron/cli/commands';
import type { CommandContext } from '../../../electron/cli/command';
import type { Measurement } from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { saveMeasurement } from '../../../electron/services/hardware';
import { tempDir } from '../reports/fixtures';

let backend: Backend;
let dir: string;

const at = (minute: number, adam: number, triad: number, machineId: string): Measurement => ({
  cpuAdam: [
    { threads: 1, paramsPerSecond: adam * 0.6e9 },
    { threads: 2, paramsPerSecond: adam * 1e9 },
  ],
  recommendedCoresPerc: 0.5,
  recommendedThreads: 1,
  simdPath: 'avx2',
  logicalCores: 2,
  memoryBandwidthBytesPerSecond: triad * 1e9,
  hostDevice: null,
  hostDeviceReason: 'no GPU on this machine',
  measuredAt: `2026-12-07T20:${String(minute).padStart(2, '0')}:00.000Z`,
  durationMs: 53_000,
  machineId,
});

beforeAll(async () => {
  dir = tempDir('measure-pick-');
  backend = createBackend({ dataDir: dir, transport: 'cli' });
  const { machineId } = await backend.invoke('hardware/detect', {});
  for (const [minute, adam, triad] of [
    [0, 1.32, 32.6],
    [5, 1.13, 25.3],
    [10, 0.39, 8.8],
  ])
    saveMeasurement(dir, at(minute, adam, triad, machineId));
});
afterAll(async () => {
  await backend?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function run(name: string, flags: Record<string, string | boolean> = {}): Promise<string> {
  const lines: string[] = [];
  const ctx: CommandContext = { backend, flags, positionals: [], json: false, out: (l) => lines.push(l) };
  expect(await commands[name].run(ctx)).toBe(0);
  return lines.join('\n');
}

describe('which measurement plans use', () => {
  it('measure --list: the busy newest flagged and passed over, the one used marked', async () => {
    const text = await run('measure', { list: true });
    const rows = text.split('\n').filter((l) => /^\s+\d /.test(l));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      /^\s+1 {3}7 Dec 2026, 20:10 UTC .*flagged: CPU Adam \d+% below the median; memory bandwidth \(triad\) \d+% below/,
    );
    expect(rows[1]).toMatch(/^\s+2 \* 7 Dec 2026, 20:05 UTC {2}CPU Adam 1\.130? G params\/s/);
    expect(text).toContain('measure --use N');
  });

  it('measure --use 1 picks the newest anyway; plan says which it used; --use auto goes back', async () => {
    expect(await run('measure', { use: '1' })).toMatch(/^\s+1 \* 7 Dec 2026, 20:10 UTC/m);
    const plan = await run('plan', { model: 'tiny-llama' });
    expect(plan).toMatch(/Host figures: measurements of this machine \(.*, measured 7 Dec 2026, 20:10 UTC: the one picked\)/);
    expect(await run('measure', { use: 'auto' })).toMatch(/^\s+2 \* 7 Dec 2026, 20:05 UTC/m);
    expect(await run('plan', { model: 'tiny-llama' })).toMatch(/measured 7 Dec 2026, 20:05 UTC: the newest that agrees with its others/);
    await expect(run('measure', { use: '9' })).rejects.toThrow(/--use 9: there are 3 measurement\(s\); use 1 to 3/);
  });
});
