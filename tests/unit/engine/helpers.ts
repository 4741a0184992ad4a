// Shared by the engine tests: a temp data folder, the fake runner (a real Python child process
// speaking the protocol), and a fixed planner input.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunSpec } from '../../../electron/contract';
import type { Planner, RunnerLaunch } from '../../../electron/services/engine';
import { buildRunSpec } from '../../../electron/services/tuner';

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

/** The tuner's spec of a strategy for the tiny model, with a fixed prediction so its storage is visible. */
export function tinySpec(strategy: string): RunSpec {
  const spec = buildRunSpec({ model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1, activationCheckpointing: false }, strategy);
  return {
    ...spec,
    prediction: {
      stepSeconds: 0.02,
      tflopsPerGpu: 0.4,
      tflopsAggregate: 0.4,
      tokensPerSecond: 1600,
      gpuPeakBytes: 0,
      hostPeakBytes: 1e9,
      calibrated: false,
      measured: false,
      params: 1000,
    },
  };
}

/** Plans every strategy the same way (the tuner's spec, no machine needed). */
export const fixedPlanner: Planner = {
  specs: (_w, strategies) =>
    strategies.map((strategy) => {
      if (strategy === 'nope') throw new Error("unknown strategy 'nope'");
      return tinySpec(strategy);
    }),
};

export const FAKE_MACHINE = {
  schemaVersion: 1,
  detectedAt: new Date().toISOString(),
  hostname: 'test-host',
  machineId: 'm-test',
  cpu: { model: 'x' },
};
