// The closed loop's decisions: run the most promising untried candidate, stop when none is
// predicted to beat the best measured by more than the noise, skip a strategy that ran out of memory.
import { describe, expect, it } from 'vitest';
import { nextTrial, untestedNote, planWorkload, seedDefaultSpec, tuneCandidates, type TuneTrial } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from './h200-machine';

const plan = planWorkload(
  { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1 },
  { machine: h200Machine(), measurements: h200Measurements() },
);
const candidates = tuneCandidates(plan, ['zero2-offload', 'zero3-offload', 'superoffload', 'fsdp2-cpu-offload']);
const trial = (i: number, tokensPerSecond: number | null, status = 'completed', errorClass: string | null = null): TuneTrial => ({
  key: candidates[i].key,
  strategyId: candidates[i].strategyId,
  runId: `r${i}`,
  status,
  tokensPerSecond,
  tflopsPerGpu: null,
  stepSeconds: null,
  errorClass,
  seconds: 60,
});

describe('tune decisions', () => {
  it('runs the plan\'s "fastest: one trial to confirm" first (Llama-3.1-8B seq 4096 on the H200: ZeRO-3 at the edge)', () => {
    const p = planWorkload(
      { model: 'llama-3.1-8b', seqLen: 4096, microBatch: 1, gpus: 1 },
      { machine: h200Machine(), measurements: h200Measurements() },
    );
    const named = p.recommended!.edgeTrial!;
    expect(named.strategyId).not.toBe(p.recommended!.strategyId); // the safe pick is another strategy
    const cs = tuneCandidates(p);
    // before, the first trial was the most promising configuration that fits for sure: the pick
    const first = nextTrial(cs, []);
    expect(first.next).toMatchObject({ edge: true, named: true, strategyId: named.strategyId, key: named.configHash });
    expect(first.next!.spec.microBatch).toBe(named.microBatch);
    expect(first.reason).toMatch(/the plan's fastest, at the edge of memory .*: one trial to confirm it, first/);
    // it ran out of memory: the safe side comes next, not another guess at the edge
    const oom: TuneTrial = {
      key: named.configHash!,
      strategyId: named.strategyId,
      runId: 'r0',
      status: 'failed',
      tokensPerSecond: null,
      tflopsPerGpu: null,
      stepSeconds: null,
      errorClass: 'cuda_oom',
      seconds: 20,
    };
    expect(nextTrial(cs, [oom]).next?.edge).toBe(false);
  });

  it("orders candidates by predicted tokens/s, each the strategy's searched spec", () => {
    // one per strategy that fits, plus its edge configuration where that is predicted faster
    expect(
      candidates
        .filter((c) => !c.edge)
        .map((c) => c.strategyId)
        .sort(),
    ).toEqual(['fsdp2-cpu-offload', 'superoffload', 'zero2-offload', 'zero3-offload']);
    for (const c of candidates.filter((x) => x.edge)) {
      const fits = candidates.find((x) => x.strategyId === c.strategyId && !x.edge)!;
      expect(c.predictedTokensPerSecond).toBeGreaterThan(fits.predictedTokensPerSecond);
      expect(c.spec.microBatch).toBeGreaterThan(fits.spec.microBatch);
    }
    // by expected speed: predicted × chance to fit (1 for what fits for sure)
    const expected = (c: (typeof candidates)[number]) => c.predictedTokensPerSecond * (c.fitChance ?? 1);
    for (let i = 1; i < candidates.length; i++) expect(expected(candidates[i - 1])).toBeGreaterThanOrEqual(expected(candidates[i]));
    // with nothing measured yet the first trial is the most promising configuration that fits for sure
    expect(nextTrial(candidates, []).next?.key).toBe(candidates.find((c) => !c.edge)!.key);
  });
  it('goes on while an untried candidate is predicted above the best measured + noise, then stops', () => {
    const slow = trial(0, candidates[1].predictedTokensPerSecond * 0.5);
    expect(nextTrial(candidates, [slow]).next?.key).toBe(candidates[1].key === candidates[0].key ? candidates[2].key : candidates[1].key);
    // a trial at 1.2× its own prediction puts the others on that scale: only a candidate the model has more than
    // the noise above the trial's configuration is still worth one
    const fast = trial(0, candidates[0].predictedTokensPerSecond * 1.2);
    // (a strategy never measured on the kind — all of them here — is worth one within the noise of the best)
    const above = candidates
      .slice(1)
      .find(
        (c) =>
          c.predictedTokensPerSecond > candidates[0].predictedTokensPerSecond * (c.unmeasured ? 0.95 : 1.05) &&
          (!c.edge || (c.fitChance ?? 1) >= 0.1),
      );
    expect(nextTrial(candidates, [fast]).next?.key).toBe(above?.key);
    const alone = nextTrial([candidates[0], ...candidates.slice(1).filter((c) => c !== above)], [fast]);
    expect(alone.next).toBeNull();
    expect(alone.reason).toMatch(/no untried candidate is predicted to beat the best measured/);
  });
  it("reads the untried on this machine's scale: Llama-3.1-8B seq 2048 on a fast H200 instance (2026-12-06)", () => {
    // tune's trial 1, ZeRO-3 micro 2, predicted 4,289 tokens/s and measured 5,249; micro 3 at the edge (86% likely to
    // fit) predicted 5,412 — below 5,249 + 5% as an absolute figure, 1.26× the trial on the model's own scale
    const base = candidates[0];
    const micro2 = { ...base, key: 'm2', edge: false, unmeasured: false, fitChance: 1, predictedTokensPerSecond: 4289 };
    const micro3 = { ...base, key: 'm3', edge: true, unmeasured: false, fitChance: 0.86, predictedTokensPerSecond: 5412 };
    const ran = (tps: number): TuneTrial => ({ ...trial(0, tps), key: 'm2' });
    const d = nextTrial([micro2, micro3], [ran(5249)]);
    expect(d.next?.key).toBe('m3');
    expect(d.reason).toMatch(/at the edge of memory \(micro \d+\) and predicted at 6623 tokens\/s \(its prediction ×1\.22/);
    // a trial slower than its prediction leaves the others their absolute figures (its miss may be its own)
    expect(nextTrial([micro2, micro3], [ran(3894)]).next?.key).toBe('m3');
    // and a candidate the model puts within the noise of the trial's configuration is not worth one, on any instance
    expect(nextTrial([micro2, { ...micro3, predictedTokensPerSecond: 4400 }], [ran(5249)]).next).toBeNull();
  });
  it('an OOM trial is a result: the loop goes on and never tries that configuration again', () => {
    const d = nextTrial(candidates, [trial(0, null, 'failed', 'cuda_oom')]);
    expect(d.next).not.toBeNull();
    expect(d.next?.key).not.toBe(candidates[0].key);
  });
  it('a configuration at the edge is worth a trial when predicted above the best measured; a strategy never measured here, when within the noise of it', () => {
    const edge = { ...candidates[0], key: 'edge', edge: true, predictedTokensPerSecond: 1100 };
    const fitting = { ...candidates[0], key: 'fits', edge: false, predictedTokensPerSecond: 1000 };
    const best = { ...trial(0, 1000), key: 'fits' };
    expect(nextTrial([edge, fitting], [best]).next?.key).toBe('edge');
    expect(nextTrial([edge, fitting], [best]).reason).toMatch(/at the edge of memory .* a trial says whether it fits/);
    const unmeasured = { ...candidates[1], key: 'new', unmeasured: true, predictedTokensPerSecond: 980 };
    expect(nextTrial([fitting, unmeasured], [best]).next?.key).toBe('new');
    expect(nextTrial([fitting, { ...unmeasured, unmeasured: false }], [best]).next).toBeNull();
  });
  it("the seed defaults are the form's micro batch without searched knobs, with the model's prediction for them", () => {
    const { spec: seed, doesNotFit } = seedDefaultSpec(plan, 'zero3-offload');
    expect(seed.microBatch).toBe(4);
    expect(seed.knobs.ratio).toBeUndefined();
    expect(seed.configHash).not.toBe(candidates.find((c) => c.strategyId === 'zero3-offload')!.key);
    expect(doesNotFit).toBeNull();
    // the runner's pre-flight checks this host figure (its fallback knows nothing of partial offload)
    expect(seed.prediction?.hostPeakBytes).toBeGreaterThan(0);
    expect(seed.prediction?.calibrated).toBe(false);
  });
  it('says when the seed defaults do not fit: Llama-3.1-8B seq 4096, full optimizer offload, on the H200 host', () => {
    // measured 2026-12-03: the pre-flight refused it (needs ~125.6 GiB, 122.0 available); the tuned ratio 0.75 ran at 268 TFLOPS/GPU
    const plan8b = planWorkload(
      { model: 'llama-3.1-8b', seqLen: 4096, microBatch: 4, gpus: 1 },
      { machine: h200Machine(), measurements: h200Measurements() },
    );
    const { spec, doesNotFit } = seedDefaultSpec(plan8b, 'zero3-offload');
    expect(doesNotFit).toMatch(/^host memory: needs 14\d\.\d GiB per node, 119\.6 GiB usable/);
    expect(spec.prediction!.hostPeakBytes!).toBeGreaterThan(122 * 2 ** 30);
    const tuned = plan8b.strategies.find((s) => s.id === 'zero3-offload')!;
    expect(tuned.fits).toBe(true);
    expect(tuned.spec.knobs.ratio).toBeLessThan(1);
  });
});

import { buildProfile, normalizeMeasurements, sampleFromRun } from '../../../electron/services/tuner';

describe('stored runs as calibration samples', () => {
  it('reads the knobs a run really had from its effective config (RunSpec-shaped spec)', () => {
    const spec = candidates.find((c) => c.strategyId === 'superoffload')!.spec;
    const effective = { ...(spec.dsConfig as Record<string, unknown>) };
    const hw = buildProfile(h200Machine(), 'file', normalizeMeasurements(h200Measurements()));
    const s = sampleFromRun(
      { runId: 'r1', strategy: 'superoffload', stepSeconds: 2, spec, config: { effectiveConfig: effective, worldSize: 1 } },
      hw,
    )!;
    expect(s.workload).toMatchObject({
      model: 'llama-3.2-3b',
      seqLen: 2048,
      microBatch: spec.microBatch,
      gradAccum: spec.gradAccum,
      gpus: 1,
    });
    expect(s.knobs).toMatchObject({
      ratio: spec.knobs.ratio,
      cpuadamCoresPerc: spec.knobs.cpuadamCoresPerc,
      overlapComm: spec.knobs.overlapComm,
      subGroupSize: spec.knobs.subGroupSize,
    });
    expect(sampleFromRun({ runId: 'r2', strategy: 'no-such-strategy', stepSeconds: 2, spec }, hw)).toBeNull();
    expect(sampleFromRun({ runId: 'r3', strategy: 'superoffload', stepSeconds: null, spec }, hw)).toBeNull();
  });
  it('a stop by the budget or the trial limit names what it left untested, and nothing once nothing is worth a trial', () => {
    // a slow first trial: every other candidate is still predicted faster, so each is named as untested
    const slow = trial(0, candidates[candidates.length - 1].predictedTokensPerSecond * 0.1);
    const note = untestedNote(candidates, [slow])!;
    expect(note).toMatch(/^left untested: /);
    const worth = nextTrial(candidates, [slow]).next!;
    expect(note).toContain(`${worth.strategyId} micro ${worth.spec.microBatch}`);
    const tried = candidates[0];
    expect(note).not.toContain(`${tried.strategyId} micro ${tried.spec.microBatch}${tried.edge ? ' (at the edge)' : ''} predicted`); // the trial ran
    // a trial far above every prediction leaves nothing worth testing — where nothing is predicted above the
    // trial's own configuration (the others read on its scale)
    const top = {
      ...candidates[0],
      key: 'top',
      predictedTokensPerSecond: 2 * Math.max(...candidates.map((c) => c.predictedTokensPerSecond)),
    };
    expect(untestedNote([top, ...candidates], [{ ...trial(0, top.predictedTokensPerSecond * 10), key: 'top' }])).toBeNull();
  });
});
