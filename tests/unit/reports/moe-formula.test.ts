// A Mixture-of-Experts run's TFLOPS formula in the reports counts the parameters a token computes
// (the spec's probe table: active), as the runner's measured TFLOPS do; a dense run its total.
import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../electron/contract';
import { workloadOf } from '../../../electron/services/reports/normalize';

const detail = (probed: Record<string, unknown> | undefined) =>
  ({
    config: { params: 46_702_792_704, layers: 32, hidden: 4096, seqLen: 1024, worldSize: 1 },
    spec: { nodes: 1, model: { probed } },
  }) as unknown as RunDetail;

describe('report formula N', () => {
  it('is the active count of a Mixture-of-Experts run, the total of a dense one', () => {
    expect(workloadOf(detail({ total: 46_702_792_704, active: 12_879_925_248 })).params).toBe(12_879_925_248);
    expect(workloadOf(detail({ total: 46_702_792_704 })).params).toBe(46_702_792_704);
    expect(workloadOf(detail(undefined)).params).toBe(46_702_792_704);
  });
});
