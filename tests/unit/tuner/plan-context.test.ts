// One set-up for a plan, one configuration and one prediction (plan/context.ts): the same workload on the
// same machine reads the same model, profile and CPU Adam share of the cores whichever entry asks. A
// SuperOffload configuration whose config leaves cpuadam_cores_perc out gets the share the plan chooses
// for the machine — the cores the training processes need kept back — not a flat 0.9.
import { describe, expect, it } from 'vitest';
import { buildProfile, predict } from '../../../electron/services/tuner';
import { chooseCpuadamCoresPerc, planContext } from '../../../electron/services/tuner/plan/context';
import { planConfiguration } from '../../../electron/services/tuner/plan/plan';
import { h200Machine } from './h200-machine';

// four ranks on the 16-core host keep 2 cores each: 8 threads of 16 for CPU Adam
const w = { model: 'llama-3.2-1b', seqLen: 1024, microBatch: 1, gpus: 4 };
const options = { machine: h200Machine() };

describe('the plan context: one set-up', () => {
  it('chooses the cores share the way the plan does', () => {
    const ctx = planContext(w, options);
    expect(ctx.perc).toBe(chooseCpuadamCoresPerc(buildProfile(options.machine, 'detected', undefined), 4, false));
    expect(ctx.perc).toBe(0.5);
  });

  it('a configuration without cpuadam_cores_perc runs and is predicted at that share', () => {
    const row = planConfiguration(w, options, 'superoffload', { ratio: 0.9 });
    const block = (row.config as { zero_optimization: { offload_optimizer: Record<string, unknown> } }).zero_optimization.offload_optimizer;
    expect(block.cpuadam_cores_perc).toBe(0.5);
    // predict() and the plan's own row read the same share
    expect(predict(w, 'superoffload', options.machine, undefined, undefined, { ratio: 0.9 }).stepSeconds).toBe(row.predicted.stepSeconds);
  });
});
