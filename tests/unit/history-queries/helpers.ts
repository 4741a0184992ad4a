// Builds real runs through the store's own lifecycle (create → start → samples → finish), so
// these tests exercise the rows the engine really writes. Figures are synthetic test values.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHistory, type HistoryStore } from '../../../electron/services/history';

export const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-hq-'));

export function machine(hostname: string, gpuName = 'NVIDIA H200', torch = '2.9.0') {
  return {
    schemaVersion: 1,
    detectedAt: new Date().toISOString(),
    hostname,
    machineId: `m-${hostname}`,
    cpu: { model: 'Xeon test', physicalCores: 16 },
    memory: { totalBytes: 256 * 2 ** 30, availableBytes: Math.random() * 1e9 },
    gpus: [{ index: 0, name: gpuName, memoryBytes: 141 * 2 ** 30 }],
    disks: [{ name: 'nvme0n1', isNvme: true, sizeBytes: 2e12 }],
    torch,
  };
}

export interface FakeRun {
  id: string;
  strategy: string;
  tflops: number;
  model?: string;
  sweepId?: string;
  repeatIndex?: number;
  host?: string;
  status?: 'completed' | 'failed';
  tags?: string[];
  predicted?: number;
  steps?: number;
  torch?: string;
  ratio?: number;
  /** More fields of the stored spec (e.g. runs/start's preflightMemory). */
  specExtra?: Record<string, unknown>;
}

export function addRun(store: HistoryStore, r: FakeRun): void {
  const steps = r.steps ?? 4;
  const stepSeconds = 100 / r.tflops;
  store.createRun({
    id: r.id,
    sweepId: r.sweepId ?? 'sweep-1',
    repeatIndex: r.repeatIndex ?? 0,
    model: r.model ?? 'llama-3.2-3b',
    strategy: r.strategy,
    engine: 'deepspeed',
    steps,
    warmup: 1,
    tags: r.tags,
    spec: {
      runId: r.id,
      seqLen: 4096,
      dsConfig: { zero_optimization: { stage: 3, offload_optimizer: { device: 'cpu', ratio: r.ratio ?? 1 } } },
      ...r.specExtra,
    },
    // predicted 0: what a CPU smoke run's plan stores (zeros: no prediction)
    predicted: r.predicted === undefined ? undefined : { tflopsPerGpu: r.predicted, stepSeconds: r.predicted ? 100 / r.predicted : 0 },
  });
  const host = r.host ?? 'h200-a';
  store.startRun(r.id, { snapshot: machine(host), machineId: `m-${host}`, logPath: null });
  store.recordHello(r.id, { v: 1, t: 1, type: 'hello', torch: r.torch ?? '2.9.0', deepspeed: '0.19.8' });
  store.appendSamples(
    r.id,
    Array.from({ length: steps + 1 }, (_, i) => ({
      step: i + 1,
      warmup: i === 0,
      stepSeconds: i === 0 ? stepSeconds * 5 : stepSeconds,
      tflopsPerGpu: i === 0 ? r.tflops / 5 : r.tflops,
      tokensPerSecond: 4096 / stepSeconds,
      loss: 10 - i,
      gpuAllocatedBytes: 20e9,
      gpuReservedBytes: 22e9,
      gpuPeakBytes: 30e9,
      hostRssBytes: 100e9,
    })),
  );
  store.finishRun(r.id, {
    status: r.status ?? 'completed',
    result:
      r.status === 'failed'
        ? null
        : {
            stepSeconds: { median: stepSeconds },
            tflopsPerGpu: { median: r.tflops },
            tokensPerSecond: { median: 4096 / stepSeconds },
            peakGpuBytes: 30e9,
            peakHostBytes: 100e9,
          },
    errorClass: r.status === 'failed' ? 'cuda_oom' : null,
  });
}

export function storeWith(runs: FakeRun[], dir = tmpDir()): HistoryStore {
  const store = openHistory(dir);
  for (const r of runs) addRun(store, r);
  return store;
}
