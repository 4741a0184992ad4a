// A plain TypeScript reference of DeepSpeed's CPU Adam step (the scalar Step_1 loop of
// csrc/adam/cpu_adam_impl.cpp), rounding to fp32 after every operation with Math.fround.
// For +, -, *, / and sqrt, computing in double and rounding once to float gives the correctly
// rounded float result, so this matches an unfused fp32 implementation bit for bit.
import type { AdamStepConsts } from '../../electron/services/hardware/measure/native';

const f = Math.fround;

export function adamStepTs(c: AdamStepConsts, p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array): void {
  for (let k = 0; k < p.length; k++) {
    let grad = g[k],
      param = p[k],
      momentum = m[k],
      variance = v[k];
    if (c.hasDecay && !c.adamw) grad = f(f(param * c.decay) + grad);
    momentum = f(momentum * c.beta1);
    momentum = f(f(grad * c.oneMinusBeta1) + momentum);
    variance = f(variance * c.beta2);
    grad = f(grad * grad);
    variance = f(f(grad * c.oneMinusBeta2) + variance);
    grad = f(Math.sqrt(variance));
    grad = f(f(grad * c.biasCorrection2) + c.eps);
    grad = f(momentum / grad);
    if (c.hasDecay && c.adamw) param = f(f(param * c.decay) + param);
    param = f(f(grad * c.stepSize) + param);
    p[k] = param;
    m[k] = momentum;
    v[k] = variance;
  }
}

/** The step constants as DeepSpeed's update_state computes them, in fp32. */
export function adamConstsTs(h: {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  adamw: boolean;
  step: number;
}): AdamStepConsts {
  const beta1 = f(h.beta1),
    beta2 = f(h.beta2),
    lr = f(h.lr),
    wd = f(h.weightDecay);
  const bias1 = f(1 - f(Math.pow(beta1, h.step)));
  const bias2 = f(1 / f(Math.sqrt(f(1 - f(Math.pow(beta2, h.step))))));
  return {
    beta1,
    beta2,
    oneMinusBeta1: f(1 - beta1),
    oneMinusBeta2: f(1 - beta2),
    eps: f(h.eps),
    stepSize: f(-lr / bias1),
    biasCorrection2: bias2,
    decay: h.adamw ? f(-lr * wd) : wd,
    hasDecay: wd > 0,
    adamw: h.adamw,
  };
}

/** A seeded generator (mulberry32), so a failure names inputs that can be reproduced. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Float32 units in the last place between a and b (0 = identical bits). */
export function ulps(a: number, b: number): number {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat32(0, a);
  buf.setFloat32(4, b);
  const ia = buf.getInt32(0),
    ib = buf.getInt32(4);
  const oa = ia < 0 ? 0x80000000 - ia : ia,
    ob = ib < 0 ? 0x80000000 - ib : ib;
  return Math.abs(oa - ob);
}
