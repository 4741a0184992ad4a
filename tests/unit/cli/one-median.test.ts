// One median everywhere (issue 49.2): a run of an even number of measured steps has one median
// step time, and `runs show ID --resources`, `runs` (runs/list), runs/get, the CSV and the HTML
// report all print it. The CLI's resource attribution once took the upper middle value (1.150 s)
// where the others took the mean of the two middle values (1.092 s).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFigure } from '../../../electron/contract';
import { commands } from '../../../electron/cli/commands';
import type { CommandContext } from '../../../electron/cli/command';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { openHistory } from '../../../electron/services/history';
import { seedRun, tempDir } from '../reports/fixtures';

const ID = 'even-0';
let backend: Backend;
let dir: string;
let expected: number;

beforeAll(() => {
  dir = tempDir('one-median-');
  const store = openHistory(dir);
  // Four measured steps (an even count) after one warm-up; the fixture varies each step's time.
  const samples = seedRun(store, { id: ID, strategy: 'zero3-offload', stepSeconds: 1, steps: 4, warmup: 1, gpus: 1 });
  const measured = samples.filter((s) => !s.warmup).map((s) => s.stepSeconds);
  const sorted = [...measured].sort((a, b) => a - b);
  expected = (sorted[1] + sorted[2]) / 2; // by hand: the mean of the two middle values
  // The upper middle value prints differently at 3 decimals: the case this test is about.
  expect(formatFigure(sorted[2], 3, false)).not.toBe(formatFigure(expected, 3, false));
  let endT = 0;
  store.storeResources(ID, {
    startedAt: '2026-12-05T08:00:00.000Z',
    intervalMs: 500,
    availability: {
      gpu: { available: false, reason: 'no NVIDIA GPU on this machine' },
      pcie: { available: false, reason: 'no NVIDIA GPU on this machine' },
      cpu: { available: true, reason: null },
      memory: { available: true, reason: null },
      nvlink: { available: false, reason: 'no NVIDIA GPU on this machine' },
      disk: { available: false, reason: 'not sampled' },
    },
    samples: [],
    steps: samples.map((s) => ({ step: s.step, warmup: s.warmup, seconds: s.stepSeconds, endT: (endT += s.stepSeconds * 1000) })),
    dropped: 0,
    downsampled: 0,
  });
  store.close();
  backend = createBackend({ dataDir: dir, transport: 'cli' });
});
afterAll(async () => {
  await backend?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function cli(positionals: string[], flags: Record<string, string | boolean> = {}): Promise<string> {
  const lines: string[] = [];
  const ctx: CommandContext = { backend, flags, positionals, json: false, out: (l) => lines.push(l) };
  expect(await commands.runs.run(ctx)).toBe(0);
  return lines.join('\n');
}

describe('one median of an even count of measured steps', () => {
  it('is the same figure in the CLI (runs show --resources, runs), the API, the CSV and the report', async () => {
    const shown = formatFigure(expected, 3, false);
    expect(await cli(['show', ID], { resources: true })).toContain(`measured steps (median ${shown} s)`);
    expect(await cli([])).toContain(`${shown} s/step`);
    const run = await backend.invoke('runs/get', { id: ID });
    expect(run.summary.stepSeconds).toBeCloseTo(expected, 12);
    const listed = await backend.invoke('runs/list', {});
    expect(listed.runs.find((r) => r.id === ID)!.stepSeconds).toBeCloseTo(expected, 12);
    const download = async (format: 'csv' | 'html') =>
      Buffer.from((await backend.invoke('reports/download', { runIds: [ID], format })).base64, 'base64').toString('utf8');
    const [header, row] = (await download('csv')).trim().split('\n');
    const column = header.split(',').indexOf('step_seconds_median');
    expect(Number(row.split(',')[column])).toBeCloseTo(expected, 9);
    expect(await download('html')).toContain(shown);
  });
});
