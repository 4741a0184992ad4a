import { describe, expect, it } from 'vitest';
import { deltaPercent, repeatStats, speedup } from '../../../electron/services/history/stats';
import { diffJson, flattenJson } from '../../../electron/contract';

describe('repeat statistics', () => {
  it('computes median, min, max, mean and sample stdev, keeping raw values in order', () => {
    const s = repeatStats([3, 1, null, 2, Number.NaN, 4])!;
    expect(s.values).toEqual([3, 1, 2, 4]);
    expect(s).toMatchObject({ n: 4, median: 2.5, min: 1, max: 4, mean: 2.5 });
    expect(s.stdev).toBeCloseTo(Math.sqrt(5 / 3), 12); // Σ(x−2.5)² = 5, n − 1 = 3
    expect(repeatStats([7])).toMatchObject({ n: 1, median: 7, stdev: 0 });
    expect(repeatStats([5, 1, 3])!.median).toBe(3);
    expect(repeatStats([null, undefined])).toBeNull();
  });

  it('gives percent deltas and direction-aware speedups', () => {
    expect(deltaPercent(150, 100)).toBe(50);
    expect(deltaPercent(80, 100)).toBe(-20);
    expect(deltaPercent(1, 0)).toBeNull();
    expect(deltaPercent(null, 1)).toBeNull();
    expect(speedup({ better: 'higher' }, 152, 100)).toBeCloseTo(1.52);
    expect(speedup({ better: 'lower' }, 2, 3)).toBeCloseTo(1.5); // 2 s beats 3 s by 1.5×
    expect(speedup({ better: 'higher' }, 0, 3)).toBeNull();
  });
});

describe('JSON diff', () => {
  it('flattens to dotted paths and reports only the paths that differ', () => {
    expect([...flattenJson({ b: [1, { c: 2 }], a: {} })]).toEqual([
      ['a', '{}'],
      ['b[0]', '1'],
      ['b[1].c', '2'],
    ]);
    const diff = diffJson(
      [
        { gpus: [{ name: 'H200' }], torch: '2.9.0', same: 1, detectedAt: 'x' },
        { gpus: [{ name: 'GH200' }], torch: '2.9.0', same: 1, detectedAt: 'y', extra: true },
        null,
      ],
      ['detectedAt'],
    );
    expect(diff).toEqual([
      { path: 'extra', values: ['—', 'true', '—'] },
      { path: 'gpus[0].name', values: ['"H200"', '"GH200"', '—'] },
      { path: 'same', values: ['1', '1', '—'] },
      { path: 'torch', values: ['"2.9.0"', '"2.9.0"', '—'] },
    ]);
    expect(diffJson([{ a: 1 }, { a: 1 }])).toEqual([]);
  });
});
