// No prediction, not a prediction of zero, on the run page's resource card (runs/resources): a CPU smoke run's plan stored zeros
// and the tuner's terms on a machine without a GPU are all 0 — that is no prediction, said in the Plan
// table's words, not "the plan stored 0.00 s" beside a table of zero terms.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_PREDICTION_WHY } from '../../../electron/contract';
import { predictedTermsOf } from '../../../electron/services/backend/handlers/resources';
import { openHistory } from '../../../electron/services/history';
import { buildRunSpec } from '../../../electron/services/tuner';
import { tempDir } from '../reports/fixtures';

const dataDir = tempDir('offload-resources-no-prediction-');
const store = openHistory(dataDir);
afterAll(() => store.close());
const h200 = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86/machine.json'), 'utf8'));

function storedRun(id: string, machine: unknown, prediction: Record<string, number>) {
  const spec = {
    ...buildRunSpec({ model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1, activationCheckpointing: true }, 'zero2-offload'),
    runId: id,
    prediction,
  };
  store.createRun({
    id,
    sweepId: 'sw-x',
    repeatIndex: 0,
    model: 'tiny-llama',
    strategy: 'zero2-offload',
    engine: 'deepspeed',
    steps: 4,
    warmup: 1,
    spec,
    predicted: prediction,
  } as never);
  store.startRun(id, { snapshot: machine, machineId: 'm-x', logPath: null });
  return store.getRun(id, 0)!;
}

describe('runs/resources predicted terms', () => {
  it("a CPU run has no prediction: no 0 s, no terms, the Plan table's words", () => {
    const run = storedRun(
      'cpu',
      { ...h200, gpus: [], gpuStatus: { driver: 'none', message: 'no NVIDIA driver found' } },
      { stepSeconds: 0, tflopsPerGpu: 0, hostPeakBytes: 2e9 },
    );
    const p = predictedTermsOf({ dataDir, history: store }, run);
    expect(p.stepSeconds).toBeNull();
    expect(p.terms).toBeNull();
    expect(p.note).toMatch(new RegExp(`^${NO_PREDICTION_WHY.replace(/[()]/g, '\\$&')}`));
    expect(p.note).not.toMatch(/0\.00 s/);
  });

  it('a GPU run keeps its terms and the step time its plan stored', () => {
    const run = storedRun('gpu', h200, { stepSeconds: 0.25, tflopsPerGpu: 10, hostPeakBytes: 2e9 });
    const p = predictedTermsOf({ dataDir, history: store }, run);
    expect(p.stepSeconds).toBeGreaterThan(0);
    expect(p.terms).not.toBeNull();
    expect(p.note).toContain('the plan stored 0.250 s');
  });
});
