// The measure service and its contract channels, end to end through the real backend (real
// addon, real files): the knee rule, the budget plan, the stored measurement, progress
// events, cancel, and the message when the addon is missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MeasurementSchema, type Measurement, type MeasureProgress } from '../../electron/contract';
import { createBackend, type Backend } from '../../electron/services/backend';
import {
  loadLatestMeasurement,
  loadMeasurementHistory,
  measurementsPath,
  planMeasurement,
  recommendCoresPerc,
  recommendThreads,
  recommendWorkerThreads,
  saveMeasurement,
} from '../../electron/services/hardware/measure';
import { loadNative, loadNativeFrom, NATIVE_NOT_BUILT, unpacked } from '../../electron/services/hardware/measure/native';
import { chooseInterpreter } from '../../electron/services/environment';
import { normalizeMeasurements } from '../../electron/services/tuner';

// torch's AdamW runs in the engine environment (the venv CI builds first); without one those tests skip.
const haveEngine = chooseInterpreter(null).source !== 'path';

const GiB = 2 ** 30;
const M = 2 ** 20;

describe('knee rule (recommended cpuadam_cores_perc)', () => {
  const curve = [
    { threads: 1, paramsPerSecond: 0.6e9 },
    { threads: 2, paramsPerSecond: 1.1e9 },
    { threads: 4, paramsPerSecond: 1.75e9 },
    { threads: 8, paramsPerSecond: 2.9e9 },
    { threads: 12, paramsPerSecond: 3.5e9 },
    { threads: 16, paramsPerSecond: 3.8e9 },
  ];
  it('picks the fewest threads reaching 90% of the best rate', () => {
    expect(recommendThreads(curve)).toBe(12); // 3.5 >= 0.9 * 3.8 = 3.42; 2.9 is not
    expect(recommendCoresPerc(curve, 16)).toBe(0.75);
  });
  it('says the threads DeepSpeed gives the worker: on 2 cores the knee at 2 is capped to 0.5, 1 thread (issue 49.9)', () => {
    const twoCores = [
      { threads: 1, paramsPerSecond: 0.9e9 },
      { threads: 2, paramsPerSecond: 1.3e9 },
    ];
    expect(recommendThreads(twoCores)).toBe(2);
    expect(recommendCoresPerc(twoCores, 2)).toBe(0.5);
    expect(recommendWorkerThreads(twoCores, 2)).toBe(1);
    expect(recommendWorkerThreads(curve, 16)).toBe(12);
  });
  it('is order-independent and ignores a noisy dip past the knee', () => {
    const shuffled = [curve[5], curve[1], { threads: 14, paramsPerSecond: 3.0e9 }, curve[4], curve[0]];
    expect(recommendThreads(shuffled)).toBe(12);
  });
  it('rounds up so DeepSpeed int(perc * cores) keeps at least the recommended threads', () => {
    const flat = [
      { threads: 3, paramsPerSecond: 1 },
      { threads: 16, paramsPerSecond: 1 },
    ];
    const perc = recommendCoresPerc(flat, 16)!; // 3/16 = 0.1875
    expect(perc).toBe(0.19);
    expect(Math.floor(perc * 16)).toBe(3);
    // Never every core: the training process keeps at least one (15/16 → 0.94, int(0.94·16) = 15).
    expect(recommendCoresPerc([{ threads: 32, paramsPerSecond: 1 }], 16)).toBe(0.94);
    expect(Math.floor(0.94 * 16)).toBe(15);
    expect(recommendCoresPerc([{ threads: 1, paramsPerSecond: 1 }], 1)).toBe(1);
  });

  it('on the H200 host (still climbing at 16 threads) leaves the trainer one core', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const file = path.resolve(import.meta.dirname, '../fixtures/hosts/h200-sxm-x86/native-measure.json');
    const captured = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      logicalCores: number;
      cpuAdam: { points: { threads: number; paramsPerSecond: number }[] };
    };
    expect(recommendCoresPerc(captured.cpuAdam.points, captured.logicalCores)).toBe(0.94);
  });
  it('has no recommendation without data', () => {
    expect(recommendThreads([])).toBeNull();
    expect(recommendCoresPerc([], 8)).toBeNull();
    expect(recommendCoresPerc([{ threads: 1, paramsPerSecond: 0 }], 8)).toBeNull();
  });
});

describe('measurement plan (budget split, buffer sizes)', () => {
  it('splits the budget by share over the included phases only', () => {
    // the default 50 s: the native phases keep the 40 s they had before torch's AdamW joined
    const all = planMeasurement({ freeMemoryBytes: 64 * GiB });
    expect(all.seconds).toEqual({ cpuAdam: 24, memoryBandwidth: 6, hostDevice: 10, torchAdam: 10 });
    expect(all.leftOut).toEqual({});
    expect(all.torchAdamParams).toBe(32 * M);
    expect(all.adamParams).toBe(64 * M); // 1 GiB of state when time and memory allow
    expect(all.triadElements).toBe(64 * M);
    expect(all.copyBytes).toBe(1024 * M);
    const two = planMeasurement({ budgetSeconds: 10, include: ['cpuAdam', 'hostDevice'], freeMemoryBytes: 64 * GiB });
    expect(two.kinds).toEqual(['cpuAdam', 'hostDevice']);
    expect(two.seconds.memoryBandwidth).toBe(0);
    expect(two.seconds.cpuAdam + two.seconds.hostDevice).toBeCloseTo(10);
  });
  it("leaves torch's AdamW out of a default measurement too short for it, saying how long would do; asked by name it runs", () => {
    const short = planMeasurement({ budgetSeconds: 10, freeMemoryBytes: 64 * GiB });
    expect(short.kinds).toEqual(['cpuAdam', 'memoryBandwidth', 'hostDevice']);
    expect(short.seconds.cpuAdam + short.seconds.memoryBandwidth + short.seconds.hostDevice).toBeCloseTo(10);
    // 5 s of its 0.25 share out of 1.25: 25 s
    expect(short.leftOut.torchAdam).toMatch(
      /a 10 s budget leaves under 5 s .* give the measurement 25 s or more, or measure torchAdam alone$/,
    );
    expect(planMeasurement({ budgetSeconds: 25, freeMemoryBytes: 64 * GiB }).kinds).toContain('torchAdam');
    // the default set less what the host cannot measure (no GPU) is still the default set
    const noGpu = planMeasurement({
      budgetSeconds: 10,
      include: ['cpuAdam', 'memoryBandwidth', 'torchAdam'],
      defaultSet: true,
      freeMemoryBytes: 64 * GiB,
    });
    expect(noGpu.kinds).not.toContain('torchAdam');
    const named = planMeasurement({ budgetSeconds: 2, include: ['torchAdam'], freeMemoryBytes: 64 * GiB });
    expect(named.kinds).toEqual(['torchAdam']);
    expect(named.seconds.torchAdam).toBe(2);
    expect(planMeasurement({ budgetSeconds: 40, freeMemoryBytes: 1 * GiB }).torchAdamParams).toBe(16 * M); // a quarter of 1 GiB / 16 B
  });
  it('scales buffers down when memory or time is short, never below 4M params', () => {
    const small = planMeasurement({ budgetSeconds: 40, freeMemoryBytes: 2 * GiB });
    expect(small.adamParams).toBe(32 * M); // a quarter of 2 GiB / 16 B
    expect(planMeasurement({ budgetSeconds: 2, freeMemoryBytes: 64 * GiB }).adamParams).toBe(4 * M);
    expect(planMeasurement({ budgetSeconds: 40, freeMemoryBytes: 0.1 * GiB }).adamParams).toBe(4 * M);
  });
});

describe('measurements.json store', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osm-store-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const sample = (at: string): Measurement => ({
    cpuAdam: [{ threads: 1, paramsPerSecond: 5e8 }],
    recommendedCoresPerc: 0.5,
    simdPath: 'avx2',
    memoryBandwidthBytesPerSecond: 1e10,
    hostDevice: null,
    hostDeviceReason: 'no CUDA runtime found: libcudart.so not loadable',
    measuredAt: at,
    durationMs: 1000,
  });
  it('is null before the first measurement, and on a corrupt file', () => {
    expect(loadLatestMeasurement(dir)).toBeNull();
    fs.writeFileSync(measurementsPath(dir), '{not json');
    expect(loadLatestMeasurement(dir)).toBeNull();
  });
  it('keeps the latest and a history, newest first', () => {
    saveMeasurement(dir, sample('2026-01-01T00:00:00.000Z'));
    saveMeasurement(dir, sample('2026-01-02T00:00:00.000Z'));
    expect(loadLatestMeasurement(dir)!.measuredAt).toBe('2026-01-02T00:00:00.000Z');
    expect(loadMeasurementHistory(dir).map((m) => m.measuredAt)).toEqual(['2026-01-02T00:00:00.000Z', '2026-01-01T00:00:00.000Z']);
    expect(fs.readdirSync(dir)).toEqual(['measurements.json']); // no temp file left behind
  });
  it('creates the data folder when missing', () => {
    const nested = path.join(dir, 'a', 'b');
    saveMeasurement(nested, sample('2026-01-01T00:00:00.000Z'));
    expect(loadLatestMeasurement(nested)).not.toBeNull();
  });
});

describe('native loader', () => {
  it('says how to build it when the addon is absent', () => {
    const r = loadNativeFrom(['/nonexistent/offload_studio_native.node']);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe(NATIVE_NOT_BUILT);
    expect(NATIVE_NOT_BUILT).toBe('native module not built, run npm run build:native');
  });
  it('looks outside app.asar in a packaged app', () => {
    expect(unpacked('/opt/Offload Studio/resources/app.asar/native/build/Release/x.node')).toBe(
      '/opt/Offload Studio/resources/app.asar.unpacked/native/build/Release/x.node',
    );
    expect(unpacked('/src/app.asarx/y')).toBe('/src/app.asarx/y');
  });
});

describe.skipIf(!loadNative().ok)('hardware/measure through the backend', () => {
  let dir: string;
  let backend: Backend;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osm-measure-'));
    backend = createBackend({ dataDir: dir, transport: 'cli' });
  });
  afterEach(async () => {
    await backend.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('measures within budget, emits progress, answers the contract shape and stores it', async () => {
    const events: MeasureProgress[] = [];
    const off = backend.on('hardware/measure-progress', (p) => events.push(p));
    const t0 = Date.now();
    const m = await backend.invoke('hardware/measure', { budgetSeconds: 4 });
    off();
    expect(Date.now() - t0).toBeLessThan(4000 + 3000);
    expect(MeasurementSchema.parse(m)).toEqual(m);
    expect(m.cpuAdam.length).toBeGreaterThanOrEqual(1);
    expect(m.recommendedCoresPerc).toBeGreaterThan(0);
    expect(m.recommendedCoresPerc).toBeLessThanOrEqual(1);
    expect(m.memoryBandwidthBytesPerSecond).toBeGreaterThan(0);
    expect(m.hostDevice === null).toBe(m.hostDeviceReason !== null);
    expect(events.map((e) => e.phase)).toEqual(expect.arrayContaining(['cpuAdam', 'memoryBandwidth', 'hostDevice', 'done']));
    const fractions = events.map((e) => e.fraction);
    expect([...fractions].sort((a, b) => a - b)).toEqual(fractions); // monotone
    expect(events.at(-1)).toMatchObject({ phase: 'done', fraction: 1 });
    expect(loadLatestMeasurement(dir)).toEqual(m);
    // 4 s leaves torch's AdamW under its 5 s minimum: left out, and the reason says how long would do
    expect(m.torchAdam).toBeNull();
    // (20 s on a host without a GPU: no copy phase shares the budget)
    expect(m.torchAdamReason).toMatch(/a 4 s budget .* give the measurement (20|25) s or more/);
  });

  it.skipIf(!haveEngine)(
    "measures torch's CPU AdamW in the engine environment: three implementations, stored, the tuner reads it",
    async () => {
      const m = await backend.invoke('hardware/measure', { budgetSeconds: 10, include: ['torchAdam'] });
      expect(MeasurementSchema.parse(m)).toEqual(m);
      expect(m.torchAdamReason).toBeNull();
      const t = m.torchAdam!;
      expect(t.threads).toBe(os.cpus().length); // no native sweep in this measurement: all logical cores
      expect(t.params).toBeGreaterThanOrEqual(4 * M);
      expect(t.torch).toMatch(/^\d+\.\d+/);
      const r = t.paramsPerSecond;
      // the per-tensor loop makes several passes over memory, the fused kernel one: it is the slowest here too
      expect(r.plain).toBeGreaterThan(0);
      expect(r.fused!).toBeGreaterThan(r.plain!);
      expect(r.foreach).toBeGreaterThan(0);
      expect(loadLatestMeasurement(dir)?.torchAdam).toEqual(t);
      expect(normalizeMeasurements(m)?.torchAdam).toEqual({ threads: t.threads, ...r });
    },
  );

  it.skipIf(!haveEngine)("cancel reaches torch's AdamW child: the measurement fails with code cancelled, promptly", async () => {
    const settled = backend.invoke('hardware/measure', { budgetSeconds: 30, include: ['torchAdam'] }).then(
      () => null,
      (e: { code?: string }) => e,
    );
    await new Promise((r) => setTimeout(r, 800)); // torch is still loading
    const t0 = Date.now();
    expect(await backend.invoke('hardware/measure-cancel', {})).toEqual({ cancelled: true });
    expect(await settled).toMatchObject({ code: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(loadLatestMeasurement(dir)).toBeNull();
  });

  it('measures only what is included', async () => {
    const m = await backend.invoke('hardware/measure', { budgetSeconds: 1, include: ['memoryBandwidth'] });
    expect(m.cpuAdam).toEqual([]);
    expect(m.recommendedCoresPerc).toBeNull();
    expect(m.memoryBandwidthBytesPerSecond).toBeGreaterThan(0);
    // every thread count of the triad is kept (the tuner reads the rate a strategy's threads draw), the best is the headline
    const byThreads = m.memoryBandwidthByThreads ?? [];
    expect(byThreads.length).toBeGreaterThan(0);
    expect(Math.max(...byThreads.map((p) => p.bytesPerSecond))).toBe(m.memoryBandwidthBytesPerSecond);
    expect(m.hostDevice).toBeNull();
    expect(m.hostDeviceReason).toMatch(/not requested/);
  });

  it('a measurement of some kinds keeps the earlier figures of the others, and says from when', async () => {
    const first = await backend.invoke('hardware/measure', { budgetSeconds: 2, include: ['cpuAdam'] });
    expect(first.cpuAdam.length).toBeGreaterThan(0);
    expect(first.carried).toBeUndefined();
    const second = await backend.invoke('hardware/measure', { budgetSeconds: 1, include: ['memoryBandwidth'] });
    expect(second.memoryBandwidthBytesPerSecond).toBeGreaterThan(0);
    // the sweep the tuner plans with is still there, marked as the first measurement's
    expect(second.cpuAdam).toEqual(first.cpuAdam);
    expect(second.recommendedCoresPerc).toBe(first.recommendedCoresPerc);
    expect(second.carried).toEqual({ cpuAdam: first.measuredAt });
    expect(loadLatestMeasurement(dir)).toEqual(second);
    // measured again, a kind is this measurement's own
    const third = await backend.invoke('hardware/measure', { budgetSeconds: 2, include: ['cpuAdam', 'memoryBandwidth'] });
    expect(third.carried).toBeUndefined();
    // and a carried figure keeps the date it was measured, not the date it was last carried
    const fourth = await backend.invoke('hardware/measure', { budgetSeconds: 1, include: ['memoryBandwidth'] });
    expect(fourth.carried).toEqual({ cpuAdam: third.measuredAt });
  });

  it('cancel: the measurement fails with code cancelled, promptly; a second one meanwhile is refused', async () => {
    const running = backend.invoke('hardware/measure', { budgetSeconds: 120 });
    const settled = running.then(
      () => null,
      (e: { code?: string }) => e,
    );
    await new Promise((r) => setTimeout(r, 300));
    await expect(backend.invoke('hardware/measure', { budgetSeconds: 1 })).rejects.toMatchObject({ code: 'busy' });
    const t0 = Date.now();
    expect(await backend.invoke('hardware/measure-cancel', {})).toEqual({ cancelled: true });
    const error = await settled;
    expect(error).toMatchObject({ code: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(loadLatestMeasurement(dir)).toBeNull(); // a cancelled measurement is not stored
    expect(await backend.invoke('hardware/measure-cancel', {})).toEqual({ cancelled: false });
  });

  it('validates the request', async () => {
    await expect(backend.invoke('hardware/measure', { budgetSeconds: -1 })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(backend.invoke('hardware/measure', { include: ['gpuFlops'] })).rejects.toMatchObject({ code: 'bad_request' });
  });
});
