// Shared by the engine tests: a temp data folder, the fake runner (a real Python child process
// speaking the protocol), and a fixed planner input.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Planner, RunnerLaunch, SpecParts } from '../../../electron/services/engine';

export const FAKE_RUNNER = path.resolve(import.meta.dirname, '../../fixtures/runner-fake/fake_runner.py');
export const PYTHON = process.env.PYTHON ?? 'python3';

export const tmpDir = (prefix = 'os-engine-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

export function fakeLaunch(specFile: string, mode: string, extra: string[] = []): RunnerLaunch {
  return { command: PYTHON, args: ['-u', FAKE_RUNNER, '--spec', specFile, '--mode', mode, ...extra] };
}

export function writeSpec(dir: string, spec: Record<string, unknown> = { steps: 5, warmup: 1 }): string {
  const file = path.join(dir, 'spec.json');
  fs.writeFileSync(file, JSON.stringify(spec));
  return file;
}

export const TINY_PARTS: SpecParts = {
  engine: 'deepspeed',
  dsConfig: { train_micro_batch_size_per_gpu: 1, zero_optimization: { stage: 3 } },
  fsdp: null,
  model: {
    id: 'tiny-llama', family: 'llama', hiddenSize: 64, numLayers: 2, numHeads: 4, numKvHeads: 4,
    intermediateSize: 128, vocabSize: 256, tieEmbeddings: false, ropeTheta: 10000, rmsNormEps: 1e-5, headDim: 16,
  },
  seqLen: 32,
  microBatch: 1,
  gradAccum: 1,
  precision: 'bf16',
  activationCheckpointing: false,
};

/** Plans every strategy the same way; predicts a fixed figure so storage of predictions is visible. */
export const fixedPlanner: Planner = {
  buildRunSpec: (_w, strategy) => {
    if (strategy === 'nope') throw new Error("unknown strategy 'nope'");
    return TINY_PARTS;
  },
  predict: () => ({ tflopsPerGpu: 0.4, stepSeconds: 0.02, source: 'test' }),
};

export const FAKE_MACHINE = { schemaVersion: 1, detectedAt: new Date().toISOString(), hostname: 'test-host', machineId: 'm-test', cpu: { model: 'x' } };
