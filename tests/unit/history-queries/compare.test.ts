// Comparisons on a real SQLite store: groups, baseline, deltas, headline, series, diffs.
import { describe, expect, it } from 'vitest';
import { storeWith } from './helpers';
import { BASELINE_RULE_WORDS } from '../../../electron/contract';

const seed = () =>
  storeWith([
    { id: 'z1', strategy: 'zero3-offload', tflops: 100, repeatIndex: 0, predicted: 110 },
    { id: 's1', strategy: 'superoffload', tflops: 150, repeatIndex: 0, predicted: 140, ratio: 0.9 },
    { id: 'z2', strategy: 'zero3-offload', tflops: 102, repeatIndex: 1, predicted: 110 },
    { id: 's2', strategy: 'superoffload', tflops: 156, repeatIndex: 1, predicted: 140, ratio: 0.9 },
  ]);

describe('compare/runs', () => {
  it('groups repeats, takes ZeRO-Offload as the baseline and writes the seed headline', () => {
    const store = seed();
    const c = store.compare(['s1', 's2', 'z1', 'z2']);
    expect(c.primary).toBe('tflopsPerGpu');
    expect(c.groups.map((g) => [g.label, g.runIds, g.isBaseline])).toEqual([
      ['ZeRO-3 Offload', ['z1', 'z2'], true],
      ['SuperOffload', ['s1', 's2'], false],
    ]);
    const superG = c.groups[1];
    expect(superG.stats.tflopsPerGpu).toMatchObject({ n: 2, median: 153, min: 150, max: 156, values: [150, 156] });
    expect(superG.deltaPct.tflopsPerGpu).toBeCloseTo((153 / 101 - 1) * 100, 10); // medians 153 vs 101
    expect(superG.deltaPct.stepSeconds!).toBeLessThan(0); // faster steps are a negative delta
    expect(superG.speedup).toBeCloseTo(153 / 101, 10);
    expect(c.headline).toBe('SuperOffload was 1.51× faster than ZeRO-3 Offload (TFLOPS/GPU median of 2 repeats)');
    store.close();
  });

  it('takes the default baseline the words say: ZeRO-3 Offload before ZeRO-Offload, whichever is older (issue 49.7)', () => {
    // zero2-offload (ZeRO-Offload) is the oldest group here; the words once said "the ZeRO-Offload
    // group" while ZeRO-3 Offload was taken when both were there, and ZeRO-Offload when it came first.
    const store = storeWith([
      { id: 'o1', strategy: 'zero2-offload', tflops: 90 },
      { id: 'z1', strategy: 'zero3-offload', tflops: 100 },
      { id: 'x1', strategy: 'superoffload', tflops: 120 },
    ]);
    for (const ids of [
      ['o1', 'z1', 'x1'],
      ['x1', 'z1', 'o1'],
    ])
      expect(store.compare(ids).groups.find((g) => g.isBaseline)!.label).toBe('ZeRO-3 Offload');
    expect(store.compare(['o1', 'x1']).groups.find((g) => g.isBaseline)!.label).toBe('ZeRO-Offload');
    expect(store.compare(['x1']).groups.find((g) => g.isBaseline)!.label).toBe('SuperOffload');
    expect(BASELINE_RULE_WORDS).toBe('the ZeRO-3 Offload group, else the ZeRO-Offload group, else the oldest run’s');
    store.close();
  });

  it('medians of repeats decide, and a difference inside both ranges is a tie, not a winner', () => {
    // the Run page once ranked single best repeats: ZeRO-Offload's lucky 3rd repeat "won" a sweep Compare gave to ZeRO-3 param offload
    const store = storeWith([
      { id: 'o1', strategy: 'zero2-offload', tflops: 90, repeatIndex: 0 },
      { id: 'o2', strategy: 'zero2-offload', tflops: 91, repeatIndex: 1 },
      { id: 'o3', strategy: 'zero2-offload', tflops: 104, repeatIndex: 2 },
      { id: 'p1', strategy: 'zero3-offload-param', tflops: 98, repeatIndex: 0 },
      { id: 'p2', strategy: 'zero3-offload-param', tflops: 99, repeatIndex: 1 },
      { id: 'p3', strategy: 'zero3-offload-param', tflops: 100, repeatIndex: 2 },
    ]);
    const c = store.compare(['o1', 'o2', 'o3', 'p1', 'p2', 'p3']);
    expect(c.headline).toBe(
      'ZeRO-3 param offload and ZeRO-Offload tie within the spread of their repeats (medians 1.09× apart, ranges overlap) (TFLOPS/GPU median of 3 repeats)',
    );
    const apart = storeWith([
      { id: 'a1', strategy: 'zero2-offload', tflops: 90, repeatIndex: 0 },
      { id: 'a2', strategy: 'zero2-offload', tflops: 91, repeatIndex: 1 },
      { id: 'b1', strategy: 'zero3-offload-param', tflops: 98, repeatIndex: 0 },
      { id: 'b2', strategy: 'zero3-offload-param', tflops: 99, repeatIndex: 1 },
    ]);
    expect(apart.compare(['a1', 'a2', 'b1', 'b2']).headline).toBe(
      'ZeRO-3 param offload was 1.09× faster than ZeRO-Offload (TFLOPS/GPU median of 2 repeats)',
    );
    store.close();
    apart.close();
  });

  it('honours an explicit baseline and says it the other way round when the baseline wins', () => {
    const store = seed();
    const c = store.compare(['s1', 's2', 'z1', 'z2'], 's1');
    expect(c.groups.find((g) => g.isBaseline)!.strategy).toBe('superoffload');
    expect(c.groups.find((g) => !g.isBaseline)!.deltaPct.tflopsPerGpu).toBeCloseTo((101 / 153 - 1) * 100, 10);
    expect(c.headline).toBe('SuperOffload was 1.51× faster than ZeRO-3 Offload (TFLOPS/GPU median of 2 repeats)');
    expect(() => store.compare(['s1'], 'z1')).toThrow(/not among the compared runs/);
    expect(() => store.compare(['nope'])).toThrow(/No stored run with id nope/);
    store.close();
  });

  it('keeps measured steps only in the series, and predictions beside measurements', () => {
    const store = seed();
    const c = store.compare(['z1', 's1']);
    const s1 = c.series.find((s) => s.runId === 's1')!;
    expect(s1.steps).toEqual([2, 3, 4, 5]); // step 1 was warm-up
    expect(s1.tflopsPerGpu).toEqual([150, 150, 150, 150]);
    const run = c.runs.find((r) => r.id === 's1')!;
    expect([run.predictedTflopsPerGpu, run.tflopsPerGpu, run.hostname]).toEqual([140, 150, 'h200-a']);
    expect(c.capacity).toEqual({ gpuBytes: 141 * 2 ** 30, hostBytes: 256 * 2 ** 30, nvmeBytes: 2e12, machine: 'h200-a' });
    // Configs differ where the strategies differ; the run id is not a difference.
    expect(c.configDiff.map((d) => d.path)).toEqual(['dsConfig.zero_optimization.offload_optimizer.ratio']);
    expect(c.snapshotDiff).toEqual([]);
    expect(c.warnings).toEqual([]);
    store.close();
  });

  it('says so when runs come from different machines or software versions', () => {
    const store = storeWith([
      { id: 'a', strategy: 'zero3-offload', tflops: 100, host: 'box-a' },
      { id: 'b', strategy: 'superoffload', tflops: 120, host: 'box-b', sweepId: 'sweep-2', torch: '2.10.0' },
    ]);
    const c = store.compare(['a', 'b']);
    expect(c.warnings[0]).toMatch(/different machines \(box-a, box-b\)/);
    expect(c.warnings[1]).toBe('Software versions differ: torch.');
    expect(c.snapshotDiff.map((d) => d.path)).toEqual(['machine.hostname', 'machine.machineId', 'software.torch']);
    expect(c.snapshotDiff[0].values).toEqual(['"box-a"', '"box-b"']);
    expect(c.groups.map((g) => g.label)).toEqual(['ZeRO-3 Offload · box-a', 'SuperOffload · box-b']);
    store.close();
  });

  it('the same strategy from two sweeps is told apart by the end of the sweep id, not "sw-20261"', () => {
    const store = storeWith([
      { id: 'a', strategy: 'zero3-offload', tflops: 100, sweepId: 'sw-20261203-141502-a1b2c3' },
      { id: 'b', strategy: 'zero3-offload', tflops: 101, sweepId: 'sw-20261203-153010-d4e5f6' },
      { id: 'c', strategy: 'superoffload', tflops: 120, sweepId: 'sw-20261203-153010-d4e5f6' },
    ]);
    const labels = store.compare(['a', 'b', 'c']).groups.map((g) => g.label);
    expect(labels).toEqual(['ZeRO-3 Offload (sweep …141502-a1b2c3)', 'ZeRO-3 Offload (sweep …153010-d4e5f6)', 'SuperOffload']);
    store.close();
  });

  it("a stored prediction of zero (a CPU smoke run's plan) is no prediction, not a point at 0", () => {
    const store = storeWith([
      { id: 'cpu', strategy: 'zero2-offload', tflops: 0.0084, predicted: 0 },
      { id: 'gpu', strategy: 'zero3-offload', tflops: 100, predicted: 110 },
    ]);
    const runs = store.compare(['cpu', 'gpu']).runs;
    const cpu = runs.find((r) => r.id === 'cpu')!;
    expect([cpu.predictedTflopsPerGpu, cpu.predictedStepSeconds]).toEqual([null, null]);
    expect(runs.find((r) => r.id === 'gpu')!.predictedTflopsPerGpu).toBe(110);
    store.close();
  });

  it('names the repeat counts in the order of the groups the headline names when the baseline wins', () => {
    // walk-through: 'ZeRO-Offload was 2.48× faster than ZeRO-3 Offload (… median of 1 vs 2 repeats)' where ZeRO-Offload had 2
    // (the default baseline is ZeRO-3 Offload's group when there is one: issue 49.7)
    const store = storeWith([
      { id: 'o1', strategy: 'zero3-offload', tflops: 248, repeatIndex: 0 },
      { id: 'o2', strategy: 'zero3-offload', tflops: 248, repeatIndex: 1 },
      { id: 'z', strategy: 'zero2-offload', tflops: 100 },
    ]);
    const c = store.compare(['o1', 'o2', 'z']);
    expect(c.groups.find((g) => g.isBaseline)!.strategy).toBe('zero3-offload');
    expect(c.headline).toBe('ZeRO-3 Offload was 2.48× faster than ZeRO-Offload (TFLOPS/GPU median of 2 vs 1 repeats)');
    store.close();
  });

  it("leaves the run's pre-flight sizing (spec.preflightMemory, set per run by runs/start) out of the configuration differences", () => {
    // walk-through: Compare listed preflightMemory.basis and preflightMemory.hostBytes (long sentences) as config
    const preflight = (hostBytes: number, basis: string) => ({
      preflightMemory: { hostBytes, gpuBytes: null, basis: `${basis}: the tuner's estimate for this machine, workload and knobs` },
    });
    const store = storeWith([
      { id: 'z', strategy: 'zero3-offload', tflops: 100, specExtra: preflight(40e9, 'sized here') },
      { id: 's', strategy: 'superoffload', tflops: 130, ratio: 0.9, specExtra: preflight(55e9, 'sized on h200-a') },
    ]);
    const c = store.compare(['z', 's']);
    expect(c.configDiff.map((d) => d.path)).toEqual(['dsConfig.zero_optimization.offload_optimizer.ratio']);
    expect(c.groups.map((g) => g.label)).toEqual(['ZeRO-3 Offload', 'SuperOffload']);
    store.close();
  });

  it('counts a failed repeat as a run without figures, and says so', () => {
    const store = storeWith([
      { id: 'z', strategy: 'zero3-offload', tflops: 100 },
      { id: 's1', strategy: 'superoffload', tflops: 130, repeatIndex: 0 },
      { id: 's2', strategy: 'superoffload', tflops: 1, repeatIndex: 1, status: 'failed' },
    ]);
    const c = store.compare(['z', 's1', 's2']);
    expect(c.groups[1].runIds).toEqual(['s1', 's2']);
    expect(c.groups[1].stats.tflopsPerGpu!.n).toBe(1);
    expect(c.headline).toBe('SuperOffload was 1.30× faster than ZeRO-3 Offload (TFLOPS/GPU median of 1 repeat)');
    expect(c.warnings.join(' ')).toMatch(/1 run\(s\) did not complete \(SuperOffload #2: failed\)/);
    store.close();
  });
});
