// ZeRO-3 with the optimizer and the bf16 parameters on the CPU: parameters stream host→GPU on every
// pass (forward, backward), so the GPU holds little beyond a gathered layer and the activations.
import { validateDsConfig } from '../config/validate-config';
import type { Mechanism } from './types';
import {
  cpuOptimizerBlock,
  deepSpeedConfig,
  deepSpeedCpuAdam,
  gpuOptimizerShare,
  gpuStepBytes,
  NO_TIME_TERMS,
  offloadedOptimizerTraffic,
  readZeroKnobs,
  stage3CpuShare,
  subGroupSeconds,
  zero3HookSeconds,
  zeroCommBytes,
  zeroCommonKnobs,
  zeroKnobSpace,
  zeroOverlaps,
} from './zero-common';
import { SEED_ZERO_KEYS, SUB_GROUP_CANDIDATES } from '../config/config-defaults';

export const paramOffload: Mechanism = {
  id: 'param-offload',
  title: 'ZeRO-3 parameter offload',
  covers: (s) => s.engine === 'deepspeed' && s.offloadOptimizer === 'cpu' && s.offloadParam === 'cpu',
  withoutGpu: 'smoke',
  hasCoresKnob: false,
  resolveKnobs: (s, _w, k) => {
    const out = zeroCommonKnobs(s, k);
    if (k.ratio !== undefined) out.ratio = k.ratio; // a user's config may carry one
    return out;
  },
  validateConfig: (config, w) => validateDsConfig(config, w),
  emitConfig: (s, w, k) =>
    deepSpeedConfig(s, w, k, {
      offload_optimizer: cpuOptimizerBlock(k),
      offload_param: { device: 'cpu', pin_memory: k.pinMemory ?? true },
    }),
  readKnobs: readZeroKnobs,
  knobSpace: ({ s, machine }) => {
    const space = zeroKnobSpace(s, machine);
    space.base.subGroupSize = SEED_ZERO_KEYS.sub_group_size;
    space.axes.push([
      'subGroupSize',
      [SEED_ZERO_KEYS.sub_group_size, ...SUB_GROUP_CANDIDATES.filter((g) => g !== SEED_ZERO_KEYS.sub_group_size)],
    ]);
    return space;
  },
  cpuShare: (_s, knobs, perRank) => stage3CpuShare(knobs, perRank, 1),
  pinnedHostTerms: ['modelStates'],
  estimatorCall: () => ({ estimator: 'zero3', cpuOffload: true, cpuOffloadParams: true }),
  memory: (ctx) => ({
    gpu: { terms: { modelStates: ctx.estimator.gpuBytes, ...gpuOptimizerShare(ctx) }, backwardGradients: 0, stepGradients: 0 },
    commBytes: zeroCommBytes(ctx, true),
    // the estimator's figure: its factor 1.5 already covers pinned staging buffers
    host: { modelStates: ctx.estimator.hostBytes },
    nvme: {},
  }),
  time: (ctx) => {
    const traffic = offloadedOptimizerTraffic(ctx);
    return {
      ...NO_TIME_TERMS,
      collectives: 'sharded',
      ...zeroOverlaps(ctx),
      ...traffic,
      // bf16 parameters up on every pass, forward and backward, every micro step
      pinnedBytes: traffic.pinnedBytes + (2 * 2 * ctx.p.total * ctx.w.gradAccum) / ctx.G,
      gpuStepBytes: gpuStepBytes(ctx),
      fetchSeconds: zero3HookSeconds(ctx) + subGroupSeconds(ctx),
      cpuAdam: deepSpeedCpuAdam(ctx),
    };
  },
};
