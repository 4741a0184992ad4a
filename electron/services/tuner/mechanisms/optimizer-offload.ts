// ZeRO-Offload: the optimizer (fp32 master, Adam m and v, fp32 gradients) on the CPU, stepped by
// DeepSpeedCPUAdam. Stage 2 (zero2-offload) keeps whole bf16 parameters on the GPU; stage 3
// (zero3-offload) partitions them and may keep a share of the optimizer on the GPU (`ratio`).
import { validateDsConfig } from '../config/validate-config';
import { MEMORY_CONSTANTS } from '../model/memory-constants';
import { RATIO_CANDIDATES, SEED_ZERO_KEYS, SUB_GROUP_CANDIDATES } from '../config/config-defaults';
import type { Mechanism, MemoryContext } from './types';
import {
  cpuOptimizerBlock,
  deepSpeedConfig,
  deepSpeedCpuAdam,
  gpuOptimizerShare,
  gpuStepBytes,
  NO_TIME_TERMS,
  zeroCollectives,
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

/**
 * Host memory of ZeRO-3 with the optimizer on the CPU, measured at three ratios on the H200 (tuned sweep):
 * 16 B per parameter of the CPU share (fp32 master, Adam m, v, fp32 gradient, pinned) + 3.5 B per parameter
 * whatever the ratio (bf16 parameters kept on the host, staging). The estimator's 16P·1.5 is the ratio-1 case.
 * SuperOffload uses it too and adds its worker's copies.
 */
export function zero3CpuOptimizerHost(ctx: MemoryContext): Record<string, number> {
  return {
    cpuOptimizerStates: Math.round(MEMORY_CONSTANTS.zero3HostBytesPerCpuParam * ctx.r * ctx.perNodeParams),
    hostParamsAndStaging: Math.round(MEMORY_CONSTANTS.zero3HostBytesPerParam * ctx.perNodeParams),
  };
}

export const optimizerOffload: Mechanism = {
  id: 'optimizer-offload',
  title: 'ZeRO-Offload (optimizer on the CPU)',
  covers: (s) => s.engine === 'deepspeed' && s.offloadOptimizer === 'cpu' && s.offloadParam === 'none' && !s.superOffload,
  withoutGpu: 'smoke',
  hasCoresKnob: false,
  resolveKnobs: (s, _w, k) => {
    const out = zeroCommonKnobs(s, k);
    // plain ZeRO-3 offload writes a ratio only when one was searched or given
    if (s.stage === 3 && k.ratio !== undefined) out.ratio = k.ratio;
    return out;
  },
  validateConfig: (config, w) => validateDsConfig(config, w),
  emitConfig: (s, w, k) => deepSpeedConfig(s, w, k, { offload_optimizer: cpuOptimizerBlock(k) }),
  readKnobs: readZeroKnobs,
  knobSpace: ({ s, machine }) => {
    const space = zeroKnobSpace(s, machine);
    if (s.stage === 3) {
      space.base.ratio = 1;
      space.axes.push(['ratio', RATIO_CANDIDATES]);
      space.base.subGroupSize = SEED_ZERO_KEYS.sub_group_size;
      space.axes.push([
        'subGroupSize',
        [SEED_ZERO_KEYS.sub_group_size, ...SUB_GROUP_CANDIDATES.filter((g) => g !== SEED_ZERO_KEYS.sub_group_size)],
      ]);
    }
    return space;
  },
  // DeepSpeed's CPU-accelerator CI trains ZeRO-3 with the optimizer on the CPU
  cpuSmokeFirst: (s) => s.stage === 3,
  cpuShare: (s, knobs, perRank) => (s.stage === 3 ? stage3CpuShare(knobs, perRank, 1) : 1),
  // stage 2 holds the estimator's figure, stage 3 the CPU share's states (zero3CpuOptimizerHost)
  pinnedHostTerms: ['modelStates', 'cpuOptimizerStates'],
  estimatorCall: (s) => ({ estimator: s.stage === 3 ? 'zero3' : 'zero2', cpuOffload: true, cpuOffloadParams: false }),
  memory: (ctx) => ({
    gpu: {
      terms: { modelStates: ctx.estimator.gpuBytes, ...(ctx.s.stage === 3 ? gpuOptimizerShare(ctx) : {}) },
      backwardGradients: 0,
      stepGradients: 0,
    },
    commBytes: zeroCommBytes(ctx, true),
    // stage 2: the estimator's figure (its factor 1.5 covers pinned staging; H200: 22.3 B/param against its 24)
    host: ctx.s.stage === 3 ? zero3CpuOptimizerHost(ctx) : { modelStates: ctx.estimator.hostBytes },
    nvme: {},
  }),
  time: (ctx) => ({
    ...NO_TIME_TERMS,
    collectives: zeroCollectives(ctx.s),
    ...zeroOverlaps(ctx),
    ...offloadedOptimizerTraffic(ctx),
    gpuStepBytes: gpuStepBytes(ctx),
    fetchSeconds: ctx.s.stage === 3 ? zero3HookSeconds(ctx) + subGroupSeconds(ctx) : 0,
    cpuAdam: deepSpeedCpuAdam(ctx),
  }),
};
