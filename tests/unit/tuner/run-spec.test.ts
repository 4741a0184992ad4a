// The RunSpec spine on the tuner side: every strategy of a plan carries the spec it would run with —
// the search's micro batch, the measured cpuadam_cores_perc, the prediction for exactly those —
// valid against the contract's schema, with a config hash that follows what determines speed.
import { describe, expect, it } from 'vitest';
import { RunSpecSchema } from '../../../electron/contract';
import { buildRunSpec, catalog, configHash, planWorkload } from '../../../electron/services/tuner';
import { buildMachine } from '../../../electron/services/hardware';
import { loadHost } from '../hardware/fixture-host';

const machine = buildMachine(loadHost('h200-sxm-x86'));
const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 1 };

describe('buildRunSpec builds what the schema would parse (it no longer parses each spec)', () => {
  it('for every strategy × model preset, with knobs pinned and a prediction', () => {
    let n = 0;
    for (const m of catalog().models)
      for (const st of catalog().strategies) {
        const spec = buildRunSpec({ model: m.id, seqLen: 1024, microBatch: 2, gpus: 2 }, st.id, {
          knobs: { ratio: 0.5, overlapComm: true, pinMemory: false },
          prediction: null,
        });
        expect(RunSpecSchema.parse(spec)).toEqual(spec);
        n++;
      }
    expect(n).toBeGreaterThan(100);
  });
});

describe('plan specs', () => {
  const plan = planWorkload(workload, {
    machine,
    measurements: {
      cpuAdam: [
        { threads: 4, paramsPerSecond: 1e9 },
        { threads: 8, paramsPerSecond: 1.9e9 },
        { threads: 12, paramsPerSecond: 2e9 },
      ],
    },
  });

  it('one valid spec per strategy, the recommendation’s micro batch and prediction in the winner’s', () => {
    expect(plan.strategies.length).toBeGreaterThan(3);
    for (const s of plan.strategies) {
      expect(RunSpecSchema.parse(s.spec)).toEqual(s.spec);
      expect(s.spec.strategy).toBe(s.id);
      expect(s.spec.configHash).toBe(configHash(s.spec));
    }
    const rec = plan.recommended!;
    const spec = plan.strategies.find((s) => s.id === rec.strategyId)!.spec;
    expect(spec.microBatch).toBe(rec.microBatch);
    expect(spec.dsConfig?.train_micro_batch_size_per_gpu ?? rec.microBatch).toBe(rec.microBatch);
    expect(spec.prediction).toMatchObject({
      stepSeconds: rec.predicted.stepSeconds,
      tflopsPerGpu: rec.predicted.tflopsPerGpu,
      params: plan.params,
    });
  });

  it('SuperOffload’s spec carries the plan’s cpuadam_cores_perc, in knobs and config alike', () => {
    const s = plan.strategies.find((p) => p.id === 'superoffload')!;
    const oo = (s.spec.dsConfig!.zero_optimization as Record<string, Record<string, unknown>>).offload_optimizer;
    expect(s.spec.knobs.cpuadamCoresPerc).toBeDefined();
    expect(oo.cpuadam_cores_perc).toBe(s.spec.knobs.cpuadamCoresPerc);
    expect(s.spec.prediction?.measured).toBe(true);
  });
});

describe('buildRunSpec and configHash', () => {
  it('config comes from the knobs', () => {
    const spec = buildRunSpec(workload, 'zero3-offload', { knobs: { ratio: 0.5, overlapComm: true, reduceBucketSize: 2e8 } });
    const zero = spec.dsConfig!.zero_optimization as Record<string, any>;
    expect(zero).toMatchObject({ overlap_comm: true, reduce_bucket_size: 2e8, offload_optimizer: { ratio: 0.5 } });
    expect(spec.knobs).toMatchObject({ ratio: 0.5, overlapComm: true, reduceBucketSize: 2e8, subGroupSize: 4e8, pinMemory: true });
  });

  it('the hash follows config and batch shape, not names, predictions or run ids', () => {
    const a = buildRunSpec(workload, 'zero3-offload');
    expect(configHash({ ...a, runId: 'x', prediction: null } as never)).toBe(a.configHash);
    expect(configHash({ ...a, model: { ...a.model, id: 'other', label: 'Other' } })).toBe(a.configHash);
    expect(buildRunSpec({ ...workload, microBatch: 2 }, 'zero3-offload').configHash).not.toBe(a.configHash);
    expect(buildRunSpec(workload, 'zero3-offload', { knobs: { ratio: 0.5 } }).configHash).not.toBe(a.configHash);
    expect(buildRunSpec(workload, 'zero2-offload').configHash).not.toBe(a.configHash);
  });
});
