// A sweep with the fake runner (a real Python child) against a real SQLite store: the run's
// resource record is stored with real CPU lanes from this machine's /proc, step ends marked, the
// GPU lanes saying why they are not available (no nvidia-smi here), and the attribution read back.
import { afterEach, describe, expect, it } from 'vitest';
import { parseRequest, type ResourceLiveEvent } from '../../../electron/contract';
import { startSweep } from '../../../electron/services/engine';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { attribute, SampleRing } from '../../../electron/services/monitor';
import { FAKE_MACHINE, fakeLaunch, fixedPlanner, tmpDir } from '../engine/helpers';

const stores: HistoryStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

describe('resources of a run', () => {
  it('are sampled while it runs, streamed live, stored with it and attributed per measured step', { timeout: 60_000 }, async () => {
    const dataDir = tmpDir();
    const history = openHistory(dataDir);
    stores.push(history);
    const live: ResourceLiveEvent[] = [];
    const sweep = await startSweep(
      parseRequest('runs/start', {
        workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
        strategies: ['zero3-offload'],
        steps: 4,
        warmup: 1,
      }),
      {
        history,
        dataDir,
        planner: fixedPlanner,
        events: { progress: () => {}, status: () => {}, log: () => {}, resources: (e) => live.push(e) },
        machine: async () => FAKE_MACHINE,
        launch: (specFile) => fakeLaunch(specFile, 'ok', ['--delay', '0.6']),
      },
    );
    const [end] = await sweep.done;
    expect(end.status).toBe('completed');
    const record = history.resources(sweep.runIds[0])!;
    expect(record).not.toBeNull();
    expect(record.steps.map((s) => [s.step, s.warmup])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [4, false],
      [5, false],
    ]);
    expect(record.samples.length).toBeGreaterThanOrEqual(5); // ~3 s at 0.5 s
    const withCpu = record.samples.filter((s) => s.cpuBusyPct.length > 0);
    expect(withCpu.length).toBeGreaterThan(3);
    expect(record.availability.cpu).toEqual({ available: true, reason: null });
    expect(record.availability.gpu.available).toBe(false);
    expect(record.availability.gpu.reason).toMatch(/nvidia-smi not found|no NVIDIA GPU/);
    expect(live.length).toBeGreaterThanOrEqual(1);
    expect(live[0].runId).toBe(sweep.runIds[0]);

    const a = attribute(record, { stepSeconds: 0.02, terms: { compute: 0.01, cpuAdamExposed: 0.005, transferExposed: 0 }, note: null });
    expect(a.steps).toHaveLength(4);
    expect(a.overall!.coresBusyPeak).not.toBeNull();
    expect(a.overall!.gpuBusyPct).toBeNull(); // not measured here: null, never 0
    expect(a.overall!.text).toMatch(/GPU not available: /);
    expect(a.predicted.terms.map((t) => t.term)).toEqual(['compute', 'cpuAdamExposed']);
    expect(a.predicted.terms[0].measured).toMatch(/^not available: /);
    expect(a.predicted.terms[1].measured).toMatch(/core\(s\) ≥90%/);
    expect(a.unavailable.some((u) => u.startsWith('gpu: not available'))).toBe(true);
  });

  it('OFFLOAD_STUDIO_RESOURCES=off runs without sampling', { timeout: 30_000 }, async () => {
    const dataDir = tmpDir();
    const history = openHistory(dataDir);
    stores.push(history);
    process.env.OFFLOAD_STUDIO_RESOURCES = 'off';
    try {
      const sweep = await startSweep(
        parseRequest('runs/start', {
          workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
          strategies: ['zero3-offload'],
          steps: 2,
          warmup: 0,
        }),
        {
          history,
          dataDir,
          planner: fixedPlanner,
          events: { progress: () => {}, status: () => {}, log: () => {} },
          machine: async () => FAKE_MACHINE,
          launch: (f) => fakeLaunch(f, 'ok'),
        },
      );
      expect((await sweep.done)[0].status).toBe('completed');
      expect(history.resources(sweep.runIds[0])).toBeNull();
    } finally {
      delete process.env.OFFLOAD_STUDIO_RESOURCES;
    }
  });
});

describe('the sample ring', () => {
  it('stays bounded over a long run and keeps its whole span, merging rates by mean and memory by peak', () => {
    const ring = new SampleRing(100);
    for (let i = 0; i < 10_000; i++)
      ring.push({
        t: i * 500,
        gpus: [{ index: 0, utilPct: i % 2 ? 100 : 0, memUsedMiB: i, powerW: null, smClockMHz: null, pcieRxMBps: null, pcieTxMBps: null }],
        cpuBusyPct: [i % 2 ? 100 : 0],
        memUsedBytes: i,
        memTotalBytes: 1e6,
        swapUsedBytes: null,
        diskReadBps: null,
        diskWriteBps: null,
      });
    const kept = ring.toArray();
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept.length).toBeGreaterThanOrEqual(50);
    expect(kept[0].t).toBe(0);
    expect(kept.at(-1)!.t).toBeGreaterThan(9000 * 500);
    expect(kept.reduce((n, s) => n + (s.merged ?? 1), 0)).toBe(10_000);
    expect(kept[0].gpus[0].utilPct).toBe(50);
    expect(kept[0].cpuBusyPct[0]).toBe(50);
    expect(kept[0].memUsedBytes).toBe((kept[0].merged ?? 1) - 1);
    expect(kept[0].swapUsedBytes).toBeNull();
  });
});

describe('the GPUs of a run', () => {
  it('are the first `gpus` of CUDA_VISIBLE_DEVICES, else 0…gpus−1', async () => {
    const { runGpuIndexes } = await import('../../../electron/services/monitor');
    expect(runGpuIndexes(1, {})).toEqual([0]);
    expect(runGpuIndexes(4, {})).toEqual([0, 1, 2, 3]);
    expect(runGpuIndexes(2, { CUDA_VISIBLE_DEVICES: '5,6,7' })).toEqual([5, 6]);
    expect(runGpuIndexes(2, { CUDA_VISIBLE_DEVICES: 'GPU-abc' })).toEqual([0, 1]); // UUIDs: not indexes
  });
});
