// The vectorized CPU Adam kernels against plain references, for every SIMD path this CPU runs
// (each forced by name): the vector paths must equal the fused (fmaf) C++ reference bit for
// bit, the scalar path must equal the TypeScript reference bit for bit, and all paths must
// agree with the TypeScript reference to within fp32 rounding of the multiply-adds.
import { describe, expect, it } from 'vitest';
import { loadNative, type AdamHyper, type SimdPathName } from '../../electron/services/hardware/measure/native';
import { adamConstsTs, adamStepTs, rng, ulps } from './adam-reference';

const load = loadNative();
const addon = load.ok ? load.addon : null;

function randomState(n: number, seed: number) {
  const r = rng(seed);
  const p = new Float32Array(n),
    g = new Float32Array(n),
    m = new Float32Array(n),
    v = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    p[i] = (r() - 0.5) * 2;
    g[i] = (r() - 0.5) * 0.2 * (r() < 0.01 ? 1000 : 1); // a few large gradients
    m[i] = (r() - 0.5) * 0.02;
    v[i] = r() * 1e-3;
  }
  if (n > 3) {
    g[0] = 0; // zero grad with zero state: 0 / (0 + eps)
    m[0] = 0;
    v[0] = 0;
    g[1] = 1e-30; // subnormal-range squares
  }
  return { p, g, m, v };
}

const clone = (s: ReturnType<typeof randomState>) => ({ p: s.p.slice(), g: s.g.slice(), m: s.m.slice(), v: s.v.slice() });
const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

function firstDifference(a: Float32Array, b: Float32Array): string | null {
  const x = bits(a),
    y = bits(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `index ${i}: ${a[i]} vs ${b[i]}`;
  return null;
}

const HYPERS: (AdamHyper & { name: string })[] = [
  { name: 'AdamW, weight decay 0.01', lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, adamw: true },
  { name: 'Adam with L2 decay 0.1', lr: 3e-4, beta1: 0.8, beta2: 0.95, eps: 1e-6, weightDecay: 0.1, adamw: false },
  { name: 'no weight decay', lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, adamw: true },
];
// Lengths that exercise every tail: below one vector, one vector +- 1, unroll blocks, odd.
const SIZES = [1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 1000, 100_003];

describe.skipIf(!addon)('native CPU Adam (SIMD paths vs references)', () => {
  const paths = addon ? addon.simdPaths() : [];

  it('offers the scalar fallback and picks the fastest path first', () => {
    expect(paths.at(-1)).toBe('scalar');
    expect(addon!.bestSimdPath).toBe(paths[0]);
    if (process.arch === 'x64') expect(paths.every((p) => ['avx512', 'avx2', 'scalar'].includes(p))).toBe(true);
  });

  it('refuses a path this CPU cannot run, and unknown names', () => {
    const s = randomState(16, 1);
    expect(() => addon!.adamStep({ path: 'bogus' as SimdPathName }, s.p, s.g, s.m, s.v)).toThrow(/unknown SIMD path/);
    const foreign: SimdPathName = process.arch === 'x64' ? 'neon' : 'avx2';
    expect(() => addon!.adamStep({ path: foreign }, s.p, s.g, s.m, s.v)).toThrow(/not supported/);
  });

  it('computes the per-step constants as the fp32 formulas do', () => {
    for (const h of HYPERS)
      for (const step of [1, 2, 10, 1000]) {
        const native = addon!.adamStepConsts({ ...h, step });
        const ts = adamConstsTs({
          lr: h.lr!,
          beta1: h.beta1!,
          beta2: h.beta2!,
          eps: h.eps!,
          weightDecay: h.weightDecay!,
          adamw: h.adamw!,
          step,
        });
        for (const key of ['beta1', 'beta2', 'oneMinusBeta1', 'oneMinusBeta2', 'eps', 'stepSize', 'biasCorrection2', 'decay'] as const)
          expect(ulps(native[key], ts[key]), `${h.name} step ${step} ${key}`).toBeLessThanOrEqual(1); // pow may differ by 1 ulp
        expect(native.hasDecay).toBe(ts.hasDecay);
      }
  });

  for (const path of paths) {
    describe(`path ${path}`, () => {
      for (const h of HYPERS) {
        it(`${h.name}: equals the ${path === 'scalar' ? 'TypeScript (unfused)' : 'fused C++'} reference bit for bit, 3 steps, all tails`, () => {
          for (const n of SIZES) {
            const a = randomState(n, n * 7 + 1),
              ref = clone(a),
              tsRef = clone(a);
            for (let step = 1; step <= 3; step++) {
              const opts = { ...h, step };
              addon!.adamStep({ ...opts, path }, a.p, a.g, a.m, a.v);
              addon!.adamStep({ ...opts, reference: path === 'scalar' ? 'unfused' : 'fused' }, ref.p, ref.g, ref.m, ref.v);
              adamStepTs(addon!.adamStepConsts(opts), tsRef.p, tsRef.g, tsRef.m, tsRef.v);
            }
            for (const k of ['p', 'm', 'v'] as const) {
              expect(firstDifference(a[k], ref[k]), `n=${n} ${k} vs C++ reference`).toBeNull();
              if (path === 'scalar') expect(firstDifference(a[k], tsRef[k]), `n=${n} ${k} vs TS reference`).toBeNull();
            }
            // Fused vs unfused multiply-adds differ only by rounding: a few ulps after 3 steps,
            // except where a value is the small difference of larger terms (m = b1*m + (1-b1)*g
            // near zero): there the error is a few ulps of the terms, not of the result, so the
            // floor is relative to the array's typical magnitude.
            for (const k of ['p', 'm', 'v'] as const) {
              const scale = tsRef[k].reduce((s, x) => s + Math.abs(x), 0) / n;
              for (let i = 0; i < n; i++) {
                const x = a[k][i],
                  y = tsRef[k][i];
                const close = ulps(x, y) <= 8 || Math.abs(x - y) <= 1e-6 * Math.max(Math.abs(y), scale);
                if (!close) expect.fail(`${path} n=${n} ${k}[${i}]: ${x} vs TS ${y} (${ulps(x, y)} ulps)`);
              }
            }
          }
        });
      }

      it('gives the same bits when the arrays are split across threads (chunked as in the benchmark)', () => {
        const n = 100_003;
        const one = randomState(n, 99),
          many = clone(one);
        addon!.adamStep({ ...HYPERS[0], step: 5, path }, one.p, one.g, one.m, one.v);
        addon!.adamStep({ ...HYPERS[0], step: 5, path, threads: 7 }, many.p, many.g, many.m, many.v);
        for (const k of ['p', 'm', 'v'] as const) expect(firstDifference(one[k], many[k])).toBeNull();
      });
    });
  }

  it('moves the parameters the way AdamW does (sanity: opposite to the first-step gradient sign)', () => {
    // First step with bias correction: update = -lr * g / (|g| + eps') for each element.
    const p = new Float32Array([1, 1, 1]),
      g = new Float32Array([0.5, -0.5, 0]);
    const m = new Float32Array(3),
      v = new Float32Array(3);
    addon!.adamStep({ lr: 0.1, step: 1, weightDecay: 0 }, p, g, m, v);
    expect(p[0]).toBeCloseTo(0.9, 5);
    expect(p[1]).toBeCloseTo(1.1, 5);
    expect(p[2]).toBe(1);
  });

  it('rejects arrays of different lengths or types', () => {
    const a = new Float32Array(8),
      b = new Float32Array(7);
    expect(() => addon!.adamStep({}, a, b, a.slice(), a.slice())).toThrow(/same length/);
    expect(() => addon!.adamStep({}, a, new Float64Array(8) as unknown as Float32Array, a.slice(), a.slice())).toThrow(/Float32Array/);
  });
});

describe('native module presence', () => {
  it('is built (npm install / npm run build:native) unless explicitly allowed absent', () => {
    if (process.env.OFFLOAD_STUDIO_ALLOW_NO_NATIVE === '1') return;
    expect(load.ok ? null : load.reason).toBeNull();
  });
});
