// The native measurements themselves: they respect their time budget, stop promptly when
// cancelled, run off the JS thread (the event loop keeps ticking), stream progress, and say
// why there is no host<->GPU figure on a machine without a CUDA runtime.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadNative } from '../../electron/services/hardware/measure/native';

const load = loadNative();
const addon = load.ok ? load.addon : null;
const M = 1 << 20;

/** Counts event-loop ticks while `work` runs: a blocked loop would count ~0. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  try {
    const value = await work;
    return { value, ticks, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

function cudaRuntimeVisible(): boolean {
  if (process.env.OFFLOAD_STUDIO_CUDART || process.env.OFFLOAD_STUDIO_CUDA_LIB_DIRS) return true;
  if (fs.existsSync('/usr/local/cuda')) return true;
  try {
    return /libcudart\.so/.test(execFileSync('ldconfig', ['-p'], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}

describe.skipIf(!addon)('native measurements', () => {
  it('CPU Adam sweep: a point per thread count, within budget, off the JS thread, with progress', async () => {
    const progress: { fraction: number; message: string }[] = [];
    const budget = 2;
    const {
      value: r,
      ticks,
      ms,
    } = await ticksDuring(
      addon!.cpuAdamSweep({ params: 4 * M, threadCounts: [1, 2], budgetSeconds: budget }, undefined, (fraction, message) =>
        progress.push({ fraction, message }),
      ),
    );
    expect(r.status.error).toBeNull();
    expect(r.status.cancelled).toBe(false);
    expect(r.points.map((p) => p.threads)).toEqual([1, 2]);
    for (const p of r.points) {
      expect(p.steps).toBeGreaterThanOrEqual(1);
      expect(p.paramsPerSecond).toBeGreaterThan(1e6);
      expect(p.minSeconds).toBeLessThanOrEqual(p.medianSeconds);
      expect(p.medianSeconds).toBeLessThanOrEqual(p.maxSeconds);
      expect(p.paramsPerSecond).toBeCloseTo((4 * M) / p.medianSeconds, 0);
    }
    expect(r.path).toBe(addon!.bestSimdPath);
    // Budget: the fill plus one step may overrun a little, never by a lot.
    expect(ms).toBeLessThan(budget * 1000 + 1500);
    expect(ticks).toBeGreaterThan((ms / 10) * 0.3);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)!.fraction).toBe(1);
    expect(progress.some((p) => /2 thread/.test(p.message))).toBe(true);
  });

  it('CPU Adam sweep: a short budget truncates the sweep but still yields the first figure', async () => {
    const t0 = performance.now();
    const r = await addon!.cpuAdamSweep({ params: 16 * M, threadCounts: [1, 2, 1, 2, 1, 2, 1, 2], budgetSeconds: 0.3 });
    const ms = performance.now() - t0;
    expect(r.points.length).toBeGreaterThanOrEqual(1);
    expect(r.points.length).toBeLessThan(8);
    expect(r.status.truncated).toBe(true);
    expect(ms).toBeLessThan(4000); // fill 256 MiB + warm-up + one step, even on a slow host
  });

  it('CPU Adam sweep: cancel stops it within a fraction of a second, mid-step', async () => {
    const token = new addon!.CancelToken();
    const started = performance.now();
    const running = addon!.cpuAdamSweep({ params: 32 * M, threadCounts: [1, 2, 1, 2], budgetSeconds: 60, path: 'scalar' }, token);
    setTimeout(() => token.cancel(), 1500);
    const r = await running;
    const ms = performance.now() - started;
    expect(token.cancelled).toBe(true);
    expect(r.status.cancelled).toBe(true);
    expect(r.status.truncated).toBe(false);
    expect(ms).toBeLessThan(1500 + 700);
  });

  it('a token cancelled before the start returns at once with nothing measured', async () => {
    const token = new addon!.CancelToken();
    token.cancel();
    const t0 = performance.now();
    const r = await addon!.memoryBandwidth({ elements: 4 * M, threadCounts: [1], budgetSeconds: 10 }, token);
    expect(r.status.cancelled).toBe(true);
    expect(r.points).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  it('memory bandwidth (triad): bytes/s per thread count within budget, off the JS thread', async () => {
    const {
      value: r,
      ticks,
      ms,
    } = await ticksDuring(addon!.memoryBandwidth({ elements: 8 * M, threadCounts: [2, 1], budgetSeconds: 1.5 }));
    expect(r.status.error).toBeNull();
    expect(r.points.map((p) => p.threads)).toEqual([2, 1]);
    expect(r.bytesPerSecond).toBe(Math.max(...r.points.map((p) => p.bytesPerSecond)));
    expect(r.bytesPerSecond).toBeGreaterThan(1e8);
    expect(ms).toBeLessThan(1500 + 1500);
    expect(ticks).toBeGreaterThan((ms / 10) * 0.3);
  });

  it('memory bandwidth: cancel mid-run', async () => {
    const token = new addon!.CancelToken();
    const t0 = performance.now();
    // eight rounds of 16M elements take ~1.3 s on a quiet core of this machine (four took ~0.8 s, and a
    // cancel at 800 ms then raced the natural end): the cancel at 200 ms lands mid-run on any machine here
    const running = addon!.memoryBandwidth({ elements: 16 * M, threadCounts: [1, 1, 1, 1, 1, 1, 1, 1], budgetSeconds: 60 }, token);
    setTimeout(() => token.cancel(), 200);
    const r = await running;
    expect(r.status.cancelled).toBe(true);
    expect(performance.now() - t0).toBeLessThan(200 + 700);
  });

  it('rejects bad options with a JS error, not a crash', async () => {
    expect(() => addon!.cpuAdamSweep({ params: 10 })).toThrow(/at least 1024/);
    expect(() => addon!.cpuAdamSweep({ params: 4096, path: 'bogus' as never })).toThrow(/unknown SIMD path/);
    expect(() => (addon!.memoryBandwidth as unknown as (x: unknown) => unknown)(42)).toThrow(/options object/);
  });

  it('default thread counts: powers of two, the 3·2^k between them, and every core count', () => {
    expect(addon!.defaultThreadCounts(1)).toEqual([1]);
    expect(addon!.defaultThreadCounts(2)).toEqual([1, 2]);
    expect(addon!.defaultThreadCounts(16)).toEqual([1, 2, 3, 4, 6, 8, 12, 16]);
    expect(addon!.defaultThreadCounts(20)).toEqual([1, 2, 3, 4, 6, 8, 12, 16, 20]);
    expect(addon!.defaultThreadCounts(addon!.logicalCores).at(-1)).toBe(addon!.logicalCores);
  });

  it('libcudart candidates: explicit paths first, folders expanded, then the standard names', () => {
    const c = addon!.cudartCandidates(['/opt/x/libcudart.so.13', '/tmp']);
    expect(c[0]).toBe('/opt/x/libcudart.so.13');
    expect(c).toContain('/tmp/libcudart.so.12');
    for (const name of ['libcudart.so', 'libcudart.so.12', 'libcudart.so.13']) expect(c).toContain(name);
  });

  it.skipIf(cudaRuntimeVisible())('host-device copy on a machine without CUDA: no figure, and the reason', async () => {
    const t0 = performance.now();
    const r = await addon!.hostDeviceCopy({ bytes: 64 * M, budgetSeconds: 5, libraryPaths: ['/nonexistent/libcudart.so'] });
    expect(r.available).toBe(false);
    expect(r.reason).toMatch(/^no CUDA runtime found: libcudart\.so not loadable/);
    expect(r.library).toBeNull();
    expect(r.pinned.h2dBytesPerSecond).toBe(0);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
