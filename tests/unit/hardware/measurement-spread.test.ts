// Noisy measurements (issue 49.9): three measurements of one machine in 15 minutes gave CPU Adam
// 1.32 → 0.39 → 1.13 G params/s and triad 32.6 → 8.8 → 25.3 GB/s; the plans took the newest without
// a word. The spread is kept and a newest that disagrees with the machine's others is flagged, through
// the backend's hardware/measurement (a real store in a temp data folder).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../electron/contract';
import { measurementsFor } from '../../../electron/services/backend/handlers/calibration';
import { measurementSpread, measureHost, nativeAvailable, saveMeasurement } from '../../../electron/services/hardware';

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

  it('plans use the newest measurement that agrees with the others, or the one the user picked', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measure-pick-'));
    const { createBackend } = await import('../../../electron/services/backend');
    const backend = createBackend({ dataDir, transport: 'cli' });
    try {
      const machine = await backend.invoke('hardware/detect', {});
      const own = (m: Measurement) => ({ ...m, machineId: machine.machineId });
      for (const m of [at(0, 1.32, 32.6), at(5, 1.13, 25.3), at(10, 0.39, 8.8)]) saveMeasurement(dataDir, own(m));
      // the busy newest (20:10) is passed over, named, and the note of every plan says which one is used
      const auto = await backend.invoke('hardware/measurements', {});
      expect(auto?.measurements.map((m) => [m.measuredAt.slice(11, 16), m.flagged.length > 0])).toEqual([
        ['20:10', true],
        ['20:05', false],
        ['20:00', false],
      ]);
      expect(auto).toMatchObject({ picked: null, usedAt: at(5, 0, 0).measuredAt });
      expect(auto?.words).toMatch(
        /^Plans use the measurement of 7 Dec 2026, 20:05 UTC, the newest that agrees with this machine's others\. Passed over .*20:10 UTC: CPU Adam \d+% below the median/,
      );
      const figures = () => measurementsFor(dataDir, machine, true);
      expect((figures().measurements as Measurement | undefined)?.measuredAt).toBe(at(5, 0, 0).measuredAt);
      expect(figures().note).toMatch(
        /measured 7 Dec 2026, 20:05 UTC: the newest that agrees with its others; newer, flagged: 7 Dec 2026, 20:10 UTC: CPU Adam/,
      );
      // picked: plans use it although it is flagged, and say so; the pick is stored in the data folder
      const picked = await backend.invoke('hardware/measurement-use', { measuredAt: at(10, 0, 0).measuredAt });
      expect(picked).toMatchObject({ picked: at(10, 0, 0).measuredAt, usedAt: at(10, 0, 0).measuredAt });
      expect(picked.words).toMatch(/picked although it is flagged/);
      expect((figures().measurements as Measurement | undefined)?.measuredAt).toBe(at(10, 0, 0).measuredAt);
      expect(figures().note).toMatch(/20:10 UTC: the one picked\)\.$/);
      // a measurement that is not stored is refused by name; null goes back to the rule
      await expect(backend.invoke('hardware/measurement-use', { measuredAt: '2020-01-01T00:00:00Z' })).rejects.toThrow(
        /No measurement of .* was measured at 2020-01-01/,
      );
      expect((await backend.invoke('hardware/measurement-use', { measuredAt: null })).usedAt).toBe(at(5, 0, 0).measuredAt);
      // a quiet newer one is used as soon as it is stored
      saveMeasurement(dataDir, own(at(15, 1.25, 30)));
      expect((figures().measurements as Measurement | undefined)?.measuredAt).toBe(at(15, 0, 0).measuredAt);
      expect(figures().note).toMatch(/20:15 UTC: the newest\)\.$/);
    } finally {
      await backend.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!nativeAvailable().available)(
    'a measurement of one kind carries the other kinds from the measurement plans use, not from a busy newest one',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'measure-carry-'));
      for (const m of [at(0, 1.32, 32.6), at(5, 1.13, 25.3), at(10, 0.39, 8.8)]) saveMeasurement(dataDir, m);
      // the real native triad, briefly; CPU Adam is not asked for
      const m = await measureHost({ include: ['memoryBandwidth'], budgetSeconds: 2, dataDir, machineId: 'm-vm' });
      expect(m.carried?.cpuAdam).toBe(at(5, 0, 0).measuredAt);
      expect(Math.max(...m.cpuAdam.map((p) => p.paramsPerSecond))).toBe(1.13e9);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    60_000,
  );
});
