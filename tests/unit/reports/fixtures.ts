// Real history stores in temp folders, seeded through the history service's own lifecycle
// (createRun → startRun → hello/config → samples → finishRun), as the engine writes them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import type { RunSample } from '../../../electron/contract';

export const XSS = '<img src=x onerror=alert(1)>';

export function tempDir(prefix = 'offload-reports-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function gh200Machine(hostname = 'gh200-node1', gpus = 4): Record<string, unknown> {
  return {
    schemaVersion: 1,
    detectedAt: '2026-11-28T10:00:00.000Z',
    hostname,
    machineId: `m-${hostname}`,
    os: { platform: 'linux', distro: 'Ubuntu', release: '24.04', kernel: '6.8.0-64k', arch: 'arm64' },
    cpu: {
      vendor: 'NVIDIA',
      model: 'Neoverse-V2',
      architecture: 'aarch64',
      sockets: gpus,
      physicalCores: 72 * gpus,
      logicalCores: 72 * gpus,
      threadsPerCore: 1,
      smt: false,
      baseMHz: null,
      maxMHz: 3402,
      numaNodes: Array.from({ length: gpus }, (_, i) => ({ id: i, cpus: [], memoryBytes: 480e9 })),
      caches: [],
      simd: ['neon', 'sve', 'sve2'],
    },
    memory: {
      totalBytes: 480e9 * gpus,
      availableBytes: null,
      hugePages: null,
      transparentHugePages: 'madvise',
      lockedMemoryLimitBytes: null,
      lockedMemoryUnlimited: true,
    },
    gpus: Array.from({ length: gpus }, (_, i) => ({
      index: i,
      vendor: 'nvidia',
      name: 'NVIDIA GH200 480GB',
      uuid: `GPU-${i}`,
      busId: null,
      memoryBytes: 96e9,
      computeCapability: '9.0',
      driverVersion: '570.86.15',
      cudaVersion: '12.8',
      pcie: { gen: null, width: null, maxGen: null, maxWidth: null },
      numaNode: i,
      cpuAffinity: null,
      powerLimitWatts: 900,
      links: [],
    })),
    gpuStatus: { driver: 'nvidia', message: `${gpus} NVIDIA GPU(s)` },
    superchip: { kind: 'GH200', description: 'Grace Hopper Superchip (NVLink-C2C)' },
    disks: [],
    warnings: [],
  };
}

export interface SeedRun {
  id: string;
  strategy: string;
  model?: string;
  engine?: 'deepspeed' | 'fsdp2';
  stepSeconds: number; // base step time; samples vary around it
  repeatIndex?: number;
  sweepId?: string;
  tags?: string[];
  notes?: string;
  gpus?: number;
  nodes?: number;
  hostname?: string;
  steps?: number;
  warmup?: number;
  status?: 'completed' | 'failed';
  /** A real RunSpec to store instead of the 70B one (its dsConfig is the run's config). */
  spec?: Record<string, unknown> & { dsConfig: unknown };
}

// Llama-3.3-70B geometry (docs/engine-facts.md; the seed scenario): N ≈ 70.55e9, L = 80, h = 8192, s = 4096, batch 4.
export const LLAMA70B = { params: 70_553_706_496, layers: 80, hidden: 8192, seqLen: 4096, globalBatch: 4 };

export function perSampleTflop(c = 4): number {
  const { params: N, layers: L, hidden: h, seqLen: s } = LLAMA70B;
  return (2 * c * N * s + 4 * c * L * h * s * s) / 1e12;
}

export function seedRun(store: HistoryStore, r: SeedRun): RunSample[] {
  const gpus = r.gpus ?? 4;
  const steps = r.steps ?? 10;
  const warmup = r.warmup ?? 3;
  const model = r.model ?? 'llama-3.3-70b';
  const engine = r.engine ?? 'deepspeed';
  const dsConfig =
    engine === 'deepspeed'
      ? {
          train_batch_size: LLAMA70B.globalBatch,
          train_micro_batch_size_per_gpu: 1,
          gradient_accumulation_steps: 1,
          bf16: { enabled: true },
          zero_optimization: {
            stage: 3,
            overlap_comm: false,
            reduce_bucket_size: 4e8,
            sub_group_size: 4e8,
            offload_optimizer: {
              device: 'cpu',
              pin_memory: true,
              ...(r.strategy === 'superoffload' ? { ratio: 0.9, super_offload: true, cpuadam_cores_perc: 0.9 } : {}),
            },
          },
          gradient_clipping: 0.0,
        }
      : null;
  const spec = r.spec ?? {
    runId: r.id,
    engine,
    model: {
      id: model,
      family: 'llama',
      hiddenSize: 8192,
      numLayers: 80,
      numHeads: 64,
      numKvHeads: 8,
      intermediateSize: 28672,
      vocabSize: 128256,
      tieEmbeddings: false,
      ropeTheta: 500000,
      rmsNormEps: 1e-5,
      headDim: 128,
    },
    seqLen: LLAMA70B.seqLen,
    microBatch: 1,
    gradAccum: 1,
    steps,
    warmup,
    precision: 'bf16',
    activationCheckpointing: true,
    seed: 1234,
    dsConfig,
    fsdp: engine === 'fsdp2' ? { cpuOffload: true, reshardAfterForward: true } : null,
    maxSeconds: 3600,
    ...(r.nodes && r.nodes > 1 ? { nodes: r.nodes, hosts: Array.from({ length: r.nodes }, (_, i) => `node-${i + 1}`) } : {}),
  };
  store.createRun({
    id: r.id,
    sweepId: r.sweepId ?? 'sweep-1',
    repeatIndex: r.repeatIndex ?? 0,
    model,
    strategy: r.strategy,
    engine,
    steps,
    warmup,
    tags: r.tags,
    notes: r.notes,
    spec,
    predicted: { tflopsPerGpu: 400, stepSeconds: r.stepSeconds * 0.9 },
  });
  store.startRun(r.id, { snapshot: gh200Machine(r.hostname, gpus), machineId: `m-${r.hostname ?? 'gh200-node1'}`, logPath: null });
  store.recordHello(r.id, {
    v: 1,
    t: 0,
    type: 'hello',
    runnerVersion: '0.3.1',
    python: '3.12.3',
    torch: '2.9.1+cu128',
    deepspeed: engine === 'deepspeed' ? '0.19.8' : null,
    cuda: '12.8',
    accelerator: 'cuda',
    devices: [],
    rank: 0,
    worldSize: gpus * (r.nodes ?? 1),
    hostname: r.hostname ?? 'gh200-node1',
  });
  store.recordConfig(r.id, {
    v: 1,
    t: 0,
    type: 'config',
    engine,
    params: LLAMA70B.params,
    trainableParams: LLAMA70B.params,
    layers: 80,
    hidden: 8192,
    seqLen: LLAMA70B.seqLen,
    globalBatch: LLAMA70B.globalBatch,
    microBatch: 1,
    gradAccum: 1,
    worldSize: gpus * (r.nodes ?? 1),
    activationCheckpointing: true,
    precision: 'bf16',
    effectiveConfig: r.spec?.dsConfig ?? dsConfig,
    formula: null,
  });
  const per = perSampleTflop();
  const samples: RunSample[] = Array.from({ length: warmup + steps }, (_, i) => {
    const t = r.stepSeconds * (i < warmup ? 1.5 : 1 + ((i * 7919) % 11) / 100 - 0.05);
    const aggregate = (LLAMA70B.globalBatch * per) / t;
    return {
      step: i + 1,
      warmup: i < warmup,
      stepSeconds: t,
      tflopsPerGpu: aggregate / (gpus * (r.nodes ?? 1)),
      tokensPerSecond: (LLAMA70B.globalBatch * LLAMA70B.seqLen) / t,
      loss: 11 - i * 0.01,
      gpuAllocatedBytes: 60e9,
      gpuReservedBytes: 70e9,
      gpuPeakBytes: 80e9 + i * 1e8,
      hostRssBytes: 900e9,
    };
  });
  store.appendSamples(r.id, samples);
  const measured = samples.filter((s) => !s.warmup);
  const stat = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return {
      median: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
      min: sorted[0],
      max: sorted[sorted.length - 1],
      mean: xs.reduce((a, b) => a + b, 0) / xs.length,
    };
  };
  const status = r.status ?? 'completed';
  store.finishRun(r.id, {
    status,
    errorClass: status === 'failed' ? 'cuda_oom' : null,
    errorMessage: status === 'failed' ? 'CUDA out of memory' : null,
    result:
      status === 'completed'
        ? {
            v: 1,
            t: 0,
            type: 'result',
            status: 'completed',
            measuredSteps: measured.length,
            stepSeconds: stat(measured.map((s) => s.stepSeconds)),
            tflopsPerGpu: stat(measured.map((s) => s.tflopsPerGpu!)),
            tflopsAggregate: stat(measured.map((s) => s.tflopsPerGpu! * gpus)),
            tokensPerSecond: stat(measured.map((s) => s.tokensPerSecond!)),
            peakGpuBytes: Math.max(...measured.map((s) => s.gpuPeakBytes!)),
            peakHostBytes: 900e9,
            lossFirst: 11,
            lossLast: 10.9,
            overheadFraction: 0.02,
          }
        : null,
  });
  return samples;
}

/** The seed comparison: SuperOffload vs ZeRO-Offload, 3 repeats each, on 4× GH200. */
export function seedComparison(store: HistoryStore, extra: Partial<SeedRun> = {}): string[] {
  const ids: string[] = [];
  for (let k = 0; k < 3; k++) {
    seedRun(store, { id: `zo-${k}`, strategy: 'zero2-offload', stepSeconds: 30 + k * 0.3, repeatIndex: k, ...extra });
    ids.push(`zo-${k}`);
  }
  for (let k = 0; k < 3; k++) {
    seedRun(store, { id: `so-${k}`, strategy: 'superoffload', stepSeconds: 20 + k * 0.2, repeatIndex: k, ...extra });
    ids.push(`so-${k}`);
  }
  return ids;
}

export function openTempStore(): { store: HistoryStore; dir: string } {
  const dir = tempDir('offload-reports-store-');
  return { store: openHistory(dir), dir };
}
