// SYNTHETIC benchmark data, for the history benchmark only: fills a history database with
// made-up runs (10,000 by default) and per-step samples (100 per run → 1,000,000), shaped like the
// rows the engine writes (runs, run_details, snapshots, samples). Every run is tagged
// 'synthetic-bench' and its notes say so; none of these figures were measured.
//
//   npx tsx bench/history-synthetic.ts --data-dir /tmp/bench-history [--runs 10000] [--samples 100]
//
// Rows go in through plain SQL in large transactions (the store's per-run lifecycle would spend
// the benchmark's time in 40,000 small commits), into a database opened and migrated by the store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHistory } from '../electron/services/history';
import { reportFigure } from './figure';

export const SYNTHETIC_TAG = 'synthetic-bench';
const STRATEGIES = ['zero3-offload', 'superoffload', 'zero2-offload', 'zero3-offload-param'];
const MODELS = ['llama-3.2-3b', 'qwen3-14b', 'llama-3.1-8b', 'phi-4'];
const BASE_TFLOPS: Record<string, number> = { 'zero3-offload': 120, superoffload: 180, 'zero2-offload': 140, 'zero3-offload-param': 60 };

// A deterministic generator, so two bench runs build the same database.
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function machine(k: number) {
  return {
    schemaVersion: 1,
    detectedAt: '2026-11-01T00:00:00.000Z',
    hostname: `synthetic-h200-${k}`,
    machineId: `synthetic-machine-${k}`,
    os: { platform: 'linux', distro: 'Ubuntu', release: '24.04', kernel: '6.8.0', arch: 'x86_64' },
    cpu: {
      vendor: 'GenuineIntel',
      model: 'Synthetic Xeon',
      architecture: 'x86_64',
      sockets: 1,
      physicalCores: 16,
      logicalCores: 32,
      simd: ['avx2', 'avx512f'],
    },
    memory: { totalBytes: 2 * 2 ** 40, availableBytes: 1.8 * 2 ** 40 },
    gpus: Array.from({ length: 4 }, (_, i) => ({
      index: i,
      vendor: 'nvidia',
      name: 'NVIDIA H200',
      memoryBytes: 141 * 2 ** 30,
      driverVersion: '570.86',
      cudaVersion: '12.8',
    })),
    disks: [{ name: 'nvme0n1', isNvme: true, sizeBytes: 3.84e12, mountpoints: ['/'] }],
    warnings: [],
  };
}

export interface GenerateOptions {
  runs?: number;
  samplesPerRun?: number;
  warmup?: number;
}

export function generate(dataDir: string, options: GenerateOptions = {}): { runs: number; samples: number; ms: number; sweeps: string[] } {
  const runs = options.runs ?? 10_000;
  const perRun = options.samplesPerRun ?? 100;
  const warmup = options.warmup ?? 10;
  const rand = lcg(6);
  const store = openHistory(dataDir);
  const db = store.db;
  const t0 = performance.now();
  const insertRun = db.prepare(
    `INSERT INTO runs (id, created_at, started_at, finished_at, status, model, strategy, engine, sweep_id, repeat_index, machine_id, tags, notes,
       error_class, error_message, tflops_per_gpu, tokens_per_second, step_seconds, peak_gpu_bytes, peak_host_bytes,
       steps, warmup, snapshot_id, predicted_tflops_per_gpu, predicted_step_seconds)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'deepspeed', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertDetails = db.prepare('INSERT INTO run_details (run_id, spec, hello, config, result, predicted) VALUES (?, ?, ?, ?, ?, ?)');
  const insertSnapshot = db.prepare('INSERT OR IGNORE INTO snapshots (id, machine_id, hostname, captured_at, body) VALUES (?, ?, ?, ?, ?)');
  const insertSample = db.prepare(
    `INSERT INTO samples (run_id, step, warmup, step_seconds, tflops_per_gpu, tokens_per_second, loss, gpu_allocated, gpu_reserved, gpu_peak, host_rss)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const sweeps: string[] = [];
  const perSweep = STRATEGIES.length * 2; // 4 strategies × 2 repeats
  let samples = 0;
  const start = Date.parse('2026-01-01T00:00:00Z');
  const batch = 500;
  for (let first = 0; first < runs; first += batch) {
    db.exec('BEGIN');
    for (let i = first; i < Math.min(runs, first + batch); i++) {
      const sweepIndex = Math.floor(i / perSweep);
      const within = i % perSweep;
      const strategy = STRATEGIES[within % STRATEGIES.length];
      const repeat = Math.floor(within / STRATEGIES.length);
      const when = new Date(start + i * 60_000);
      const stamp = when.toISOString().replace(/[-:]/g, '').slice(0, 15);
      const sweepId = `sw-${stamp.slice(0, 8)}-syn${String(sweepIndex).padStart(5, '0')}`;
      if (within === 0) sweeps.push(sweepId);
      const id = `r-${stamp.slice(0, 8)}-syn${String(sweepIndex).padStart(5, '0')}-${within + 1}`;
      const model = MODELS[sweepIndex % MODELS.length];
      const machineK = sweepIndex % 10;
      const failed = rand() < 0.03;
      const tflops = BASE_TFLOPS[strategy] * (0.9 + rand() * 0.2);
      const stepSeconds = 300 / tflops;
      const tokens = 16384 / stepSeconds;
      const snapshotId = `synthetic-snapshot-${machineK}`;
      insertSnapshot.run(
        snapshotId,
        `synthetic-machine-${machineK}`,
        `synthetic-h200-${machineK}`,
        when.toISOString(),
        JSON.stringify(machine(machineK)),
      );
      insertRun.run(
        id,
        when.toISOString(),
        when.toISOString(),
        new Date(when.getTime() + 50_000).toISOString(),
        failed ? 'failed' : 'completed',
        model,
        strategy,
        sweepId,
        repeat,
        `synthetic-machine-${machineK}`,
        JSON.stringify([SYNTHETIC_TAG, `sweep-${String(sweepIndex).padStart(5, '0')}`]),
        'Synthetic benchmark row: not a measurement.',
        failed ? 'cuda_oom' : null,
        failed ? 'CUDA out of memory (synthetic)' : null,
        failed ? null : tflops,
        failed ? null : tokens,
        failed ? null : stepSeconds,
        failed ? null : 60e9 + rand() * 40e9,
        failed ? null : 300e9 + rand() * 200e9,
        perRun - warmup,
        warmup,
        snapshotId,
        BASE_TFLOPS[strategy],
        300 / BASE_TFLOPS[strategy],
      );
      const dsConfig = {
        train_batch_size: 4,
        bf16: { enabled: true },
        zero_optimization: {
          stage: 3,
          offload_optimizer: {
            device: 'cpu',
            pin_memory: true,
            ...(strategy === 'superoffload' ? { super_offload: true, ratio: 0.9, cpuadam_cores_perc: 0.9 } : {}),
          },
        },
      };
      insertDetails.run(
        id,
        JSON.stringify({
          runId: id,
          engine: 'deepspeed',
          seqLen: 4096,
          microBatch: 4,
          gradAccum: 1,
          steps: perRun - warmup,
          warmup,
          precision: 'bf16',
          activationCheckpointing: true,
          seed: 1,
          dsConfig,
        }),
        JSON.stringify({
          v: 1,
          t: 0,
          type: 'hello',
          runnerVersion: '0.1.0',
          python: '3.12.3',
          torch: '2.9.0',
          deepspeed: '0.19.8',
          cuda: '12.8',
          accelerator: 'cuda',
        }),
        JSON.stringify({
          v: 1,
          t: 1,
          type: 'config',
          engine: 'deepspeed',
          params: 3.2e9,
          layers: 28,
          hidden: 3072,
          seqLen: 4096,
          globalBatch: 4,
        }),
        failed
          ? null
          : JSON.stringify({
              v: 1,
              t: 2,
              type: 'result',
              status: 'completed',
              measuredSteps: perRun - warmup,
              stepSeconds: { median: stepSeconds, min: stepSeconds * 0.97, max: stepSeconds * 1.05, mean: stepSeconds },
            }),
        JSON.stringify({ tflopsPerGpu: BASE_TFLOPS[strategy], stepSeconds: 300 / BASE_TFLOPS[strategy] }),
      );
      for (let step = 1; step <= perRun; step++) {
        const isWarm = step <= warmup;
        const s = stepSeconds * (isWarm ? 1.5 : 0.97 + rand() * 0.06);
        insertSample.run(
          id,
          step,
          isWarm ? 1 : 0,
          s,
          300 / s,
          16384 / s,
          11 - step * 0.02,
          Math.round(50e9 + rand() * 1e9),
          Math.round(60e9),
          Math.round(70e9),
          Math.round(400e9 + rand() * 1e9),
        );
        samples++;
      }
    }
    db.exec('COMMIT');
  }
  const ms = performance.now() - t0;
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  store.close();
  return { runs, samples, ms, sweeps };
}

export function databaseBytes(dataDir: string): number {
  return ['history.db', 'history.db-wal', 'history.db-shm']
    .map((f) => path.join(dataDir, f))
    .filter((f) => fs.existsSync(f))
    .reduce((sum, f) => sum + fs.statSync(f).size, 0);
}

// Standalone: generate into --data-dir (or a temp folder) and report how long it took and the size.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dir = flag('data-dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-history-'));
  const result = generate(dir, { runs: Number(flag('runs') ?? 10_000), samplesPerRun: Number(flag('samples') ?? 100) });
  const mb = databaseBytes(dir) / 1e6;
  console.log(`synthetic history: ${result.runs} runs, ${result.samples} samples in ${dir}`);
  reportFigure({
    id: 'history-synthetic-insert-ms',
    label: `insert ${result.runs} synthetic runs + ${result.samples} samples`,
    value: result.ms,
    unit: 'ms',
    goal: 'n/a',
    ok: null,
    note: 'synthetic data, benchmark only',
  });
  reportFigure({
    id: 'history-db-mb',
    label: 'history database size (10,000 runs, 1,000,000 samples)',
    value: mb,
    unit: 'MB',
    goal: '< 200 MB',
    ok: mb < 200,
    note: 'synthetic data',
  });
  if (!flag('data-dir')) fs.rmSync(dir, { recursive: true, force: true });
}
