// Noisy measurements (issue 49.9): three measurements of one machine in 15 minutes gave CPU Adam
// 1.32 → 0.39 → 1.13 G params/s and triad 32.6 → 8.8 → 25.3 GB/s; the plans took the newest without
// a word. The spread is kept and a newest that disagrees with the machine's others is flagged, through
// the backend's hardware/measurement (a real store in a temp data folder).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../electron/contract';
import { measurementSpread, saveMeasurement } from '../../../electron/services/hardware';

const at = (minute: number, adam: number, triad: number): Measurement => ({
  cpuAdam: [
    { threads: 1, paramsPerSecond: adam * 0.6e9 },
    { threads: 2, paramsPerSecond: adam * 1e9 },
  ],
  recommendedCoresPerc: 0.5,
  simdPath: 'avx2',
  memoryBandwidthBytesPerSecond: triad * 1e9,
  hostDevice: null,
  hostDeviceReason: 'no GPU on this machine',
  measuredAt: `2026-12-07T20:${String(minute).padStart(2, '0')}:00.000Z`,
  durationMs: 53_000,
  machineId: 'm-vm',
});

describe('a measurement beside the machine’s earlier ones', () => {
  it('keeps the spread and flags the busy one (0.39 against 1.13–1.32)', () => {
    const history = [at(10, 1.13, 25.3), at(5, 0.39, 8.8), at(0, 1.32, 32.6)]; // newest first, as stored
    const busy = measurementSpread(at(20, 0.39, 8.8), history);
    expect(busy.map((s) => [s.figure, s.disagrees])).toEqual([
      ['CPU Adam', true],
      ['memory bandwidth (triad)', true],
    ]);
    expect(busy[0].words).toMatch(
      /^CPU Adam 0\.39 G params\/s; this machine's 3 earlier measurement\(s\): 0\.39–1\.32 G params\/s; median of all 4: 0\.76 — 49% below it/,
    );
    const quiet = measurementSpread(history[0], history);
    expect(quiet.map((s) => s.disagrees)).toEqual([false, false]);
    expect(quiet[0].earlier).toEqual([0.39e9, 1.32e9]);
    // another machine's measurements are not this one's spread
    expect(measurementSpread({ ...at(30, 0.5, 9), machineId: 'm-other' }, history)).toEqual([]);
  });

  it('comes with the stored measurement the pages read (hardware/measurement)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measure-spread-'));
    const { createBackend } = await import('../../../electron/services/backend');
    const backend = createBackend({ dataDir, transport: 'cli' });
    try {
      const machine = await backend.invoke('hardware/detect', {});
      for (const m of [at(0, 1.32, 32.6), at(5, 1.2, 30), at(10, 0.39, 8.8)])
        saveMeasurement(dataDir, { ...m, machineId: machine.machineId });
      const stored = await backend.invoke('hardware/measurement', {});
      expect(stored?.spread?.find((s) => s.figure === 'CPU Adam')?.disagrees).toBe(true);
    } finally {
      await backend.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
