// `tune`'s closing line: the winner beside its strategy's seed defaults.
import { describe, expect, it } from 'vitest';
import { seedDefaultsLine } from '../../../electron/cli/commands/tune';
import type { TuneTrial } from '../../../electron/services/tuner';

const trial = (t: Partial<TuneTrial>): TuneTrial => ({
  key: 'k1',
  strategyId: 'zero2-offload',
  runId: 'r1',
  status: 'completed',
  tokensPerSecond: 1000,
  tflopsPerGpu: 50,
  stepSeconds: 1,
  seconds: 30,
  ...t,
});

describe('tune: the seed defaults line', () => {
  it('says the seed defaults were the winner, not "tuned is 0% faster", when the winner is their own run', () => {
    // walk-through: the winner's configuration was the seed defaults, the loop reused its run as the baseline
    const best = trial({});
    const line = seedDefaultsLine(best, { ...best, baseline: true }, undefined);
    expect(line).not.toMatch(/% faster/);
    expect(line).toBe(
      'seed defaults of zero2-offload: the winner itself (r1) — the tuned configuration is the seed defaults, no gain to report',
    );
  });

  it('gives the gain over a separately measured seed-defaults run, its failure, or the note why it was not measured', () => {
    const best = trial({ tokensPerSecond: 1500 });
    expect(seedDefaultsLine(best, trial({ key: 'k0', runId: 'r0', baseline: true }), undefined)).toBe(
      'seed defaults of zero2-offload: 50.0 TFLOPS/GPU, 1000 tokens/s (r0) — tuned is 50% faster',
    );
    expect(
      seedDefaultsLine(
        best,
        trial({ key: 'k0', runId: 'r0', status: 'failed', errorClass: 'oom', tokensPerSecond: null, baseline: true }),
        undefined,
      ),
    ).toBe('seed defaults of zero2-offload: failed (oom) (r0)');
    expect(seedDefaultsLine(best, null, 'not measured (no baseline asked for)')).toBe(
      'seed defaults of zero2-offload: not measured (no baseline asked for)',
    );
    expect(seedDefaultsLine(best, null, undefined)).toBeNull();
  });
});
