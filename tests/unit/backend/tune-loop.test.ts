// The tune loop over the contract's channels, with a fake engine: trials measure what a "true"
// machine gives, the plan is the tuner's own; the loop stops by its rule, records an OOM and goes
// on, refuses a budget too small for one trial, and measures the winner's seed defaults.
import { describe, expect, it } from 'vitest';
import type { RunSpec } from '../../../electron/contract';
import { runTuneLoop, TuneError, type TuneBus } from '../../../electron/services/backend/tune-loop';
import { planWorkload } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from '../tuner/h200-machine';

function fakeBus(truth: (spec: RunSpec) => { tokensPerSecond: number | null; status?: string; errorClass?: string }) {
  const listeners: ((e: unknown) => void)[] = [];
  const runs = new Map<string, { spec: RunSpec; r: ReturnType<typeof truth> }>();
  let n = 0;
  const started: RunSpec[] = [];
  const bus = {
    async invoke(channel: string, request: any): Promise<any> {
      if (channel === 'plan/compute')
        return planWorkload({ ...request.workload }, { machine: h200Machine(), measurements: h200Measurements() });
      if (channel === 'runs/start') {
        const id = `run-${++n}`;
        const spec = request.specs[0] as RunSpec;
        started.push(spec);
        runs.set(id, { spec, r: truth(spec) });
        setTimeout(() => listeners.forEach((l) => l({ sweepId: `sw-${n}`, sweepDone: true })), 1);
        return { sweepId: `sw-${n}`, runIds: [id], runs: [] };
      }
      if (channel === 'runs/get') {
        const { spec, r } = runs.get(request.id)!;
        const tokens = spec.seqLen * spec.microBatch * spec.gradAccum;
        return {
          summary: {
            id: request.id,
            status: r.status ?? 'completed',
            tokensPerSecond: r.tokensPerSecond,
            tflopsPerGpu: 1,
            stepSeconds: r.tokensPerSecond ? tokens / r.tokensPerSecond : null,
            errorClass: r.errorClass ?? null,
          },
        };
      }
      if (channel === 'runs/cancel') return { cancelled: true };
      throw new Error(channel);
    },
    on(event: string, listener: (e: unknown) => void) {
      if (event === 'runs/status') listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
  } as unknown as TuneBus;
  return { bus, started };
}

const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1 };
/** A machine as the model's point estimate says: a run whose predicted peak (+ the CUDA context) exceeds the H200 runs out of memory, the rest run at the predicted speed. */
const asPredicted = (spec: RunSpec) =>
  (spec.prediction?.gpuPeakBytes ?? 0) + 1.5 * 2 ** 30 > 143771 * 2 ** 20
    ? { tokensPerSecond: null, status: 'failed', errorClass: 'cuda_oom' }
    : { tokensPerSecond: spec.prediction?.tokensPerSecond ?? 1000 };
const base = {
  workload,
  budgetSeconds: 3600,
  maxTrials: 6,
  steps: 4,
  warmup: 2,
  strategies: ['zero2-offload', 'zero3-offload', 'superoffload', 'fsdp2-cpu-offload'],
};

describe('tune loop', () => {
  it('stops as soon as nothing untried is predicted above the best measured + noise, and measures the seed defaults', async () => {
    // the machine is exactly as predicted: the first trial fits for sure; configurations at the edge
    // predicted faster are trialled (some run, some run out); then nothing beats the best
    const { bus, started } = fakeBus(asPredicted);
    const r = await runTuneLoop(bus, { ...base });
    const trials = r.trials.filter((t) => !t.baseline);
    expect(trials.length).toBeGreaterThanOrEqual(1);
    expect(started[0].knobs.ratio).toBeDefined(); // the first trial: the searched spec of a strategy that fits for sure
    expect(r.stopReason).toMatch(
      /no untried candidate is predicted to beat the best measured|every candidate configuration has been tried/,
    );
    expect(r.seedDefaults?.baseline).toBe(true);
    expect(started.at(-1)!.microBatch).toBe(4); // the seed defaults: the form's micro batch
    expect(r.gain).not.toBeNull();
  });

  it('tests the boundary: Llama-3.1-8B seq 4096 on the H200 host — ZeRO-3 without offload, at the edge, is trialled and wins; an OOM on the way is a result', async () => {
    // The plan before called ZeRO-3 without offload "does not fit" and tune never tried it (measured: 1.6× the offload pick)
    const { bus, started } = fakeBus(asPredicted);
    const r = await runTuneLoop(bus, { ...base, workload: { ...workload, model: 'llama-3.1-8b', seqLen: 4096 }, strategies: undefined });
    expect(started.some((s) => s.strategy === 'gpu-zero3')).toBe(true);
    expect(r.winner?.strategyId).toBe('gpu-zero3');
    expect(r.trials.every((t) => t.status === 'completed' || t.errorClass === 'cuda_oom')).toBe(true);
    // the winner's seed defaults (micro 4, no searched knobs) cannot fit: not run, and said why
    expect(r.seedDefaults).toBeNull();
    expect(r.seedDefaultsNote).toMatch(
      /the seed defaults \(micro 4, no searched knobs\) do not fit this machine — GPU memory: needs .* GiB per GPU/,
    );
  });

  it('records an OOM trial with its class and goes on without that configuration', async () => {
    let first = true;
    const { bus } = fakeBus((spec) => {
      if (first) {
        first = false;
        return { tokensPerSecond: null, status: 'failed', errorClass: 'cuda_oom' };
      }
      return { tokensPerSecond: (spec.prediction?.tokensPerSecond ?? 1000) * 1.0 };
    });
    const r = await runTuneLoop(bus, { ...base, baseline: false });
    expect(r.trials[0]).toMatchObject({ status: 'failed', errorClass: 'cuda_oom' });
    expect(r.trials.slice(1).every((t) => t.key !== r.trials[0].key)).toBe(true);
    expect(r.winner).not.toBeNull();
  });

  it('refuses a budget too small for one trial, naming what to change', async () => {
    const { bus } = fakeBus(() => ({ tokensPerSecond: 1 }));
    await expect(runTuneLoop(bus, { ...base, budgetSeconds: 10 })).rejects.toBeInstanceOf(TuneError);
    await expect(runTuneLoop(bus, { ...base, budgetSeconds: 10 })).rejects.toThrow(/too small for one trial.*raise the budget/);
  });

  it('a model that fits nowhere is a clear error', async () => {
    const { bus } = fakeBus(() => ({ tokensPerSecond: 1 }));
    await expect(runTuneLoop(bus, { ...base, workload: { ...workload, model: 'llama-3.1-70b', seqLen: 4096 } })).rejects.toThrow(
      /nothing fits this machine.*smaller model/,
    );
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBackend } from '../../../electron/services/backend';
import type { TuneProgress } from '../../../electron/contract';

describe('tune/start over the contract', () => {
  it('answers at once with an id, reports through tune/progress, refuses a second tune while one runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-tune-'));
    // This machine (a backend with --machine FILE refuses tunes: tests/unit/backend/machine-file-runs.test.ts);
    // a 70B model at seq 4096 on one GPU fits no single machine, GPU or not.
    const backend = createBackend({ dataDir, transport: 'server' });
    try {
      const events: TuneProgress[] = [];
      const done = new Promise<void>((resolve) => backend.on('tune/progress', (e) => (events.push(e), e.done && resolve())));
      const { tuneId } = await backend.invoke('tune/start', { workload: { model: 'llama-3.1-70b', seqLen: 4096, microBatch: 1, gpus: 1 } });
      expect(tuneId).toMatch(/^tune-/);
      await expect(
        backend.invoke('tune/start', { workload: { model: 'gpt2', seqLen: 128, microBatch: 1, gpus: 1 } }),
      ).rejects.toMatchObject({ code: 'busy' });
      await done;
      const last = events.at(-1)!;
      expect(last).toMatchObject({ tuneId, done: true, result: null, error: { field: 'model' } });
      expect(last.error!.message).toMatch(/nothing fits this machine/);
      expect((await backend.invoke('tune/cancel', { tuneId })).cancelled).toBe(false);
    } finally {
      await backend.close();
    }
  });
});
