// ZeRO-1/2/3 with everything on the GPU. Its memory is what DeepSpeed 0.19 allocates (the estimators'
// 18 B/param count an fp32 gradient of every parameter for the whole step, which 0.19 does not hold);
// its step time is GPU work alone plus, at stage 3, the parameter hooks.
import { validateDsConfig } from '../config/validate-config';
import type { Knobs, StrategyPreset, Workload } from '../../../contract';
import { SEED_ZERO_KEYS } from '../config/config-defaults';
import type { ParamCount } from '../model/params';
import { THROUGHPUT_CONSTANTS, type ThroughputKnobs } from '../model/throughput-constants';
import type { GpuStates, Mechanism } from './types';
import {
  deepSpeedConfig,
  gpuStepBytes,
  NO_TIME_TERMS,
  zeroCollectives,
  readZeroKnobs,
  zero3HookSeconds,
  zeroCommBytes,
  zeroCommonKnobs,
  zeroKnobSpace,
  zeroOverlaps,
} from './zero-common';

/**
 * GPU model states of DeepSpeed ZeRO without offload, by what DeepSpeed 0.19 allocates (bf16 training,
 * Adam), per GPU. 0.19 keeps the optimizer's fp32 gradient for one sub-group at a time (stage3.py
 * initialize_optimizer_states: one buffer of the largest sub-group) and, in stage 1/2, the fp32 gradient
 * partition only inside step(). The H200 boundary probes (resources/samples/h200-boundary-sweep): Llama-3.1-8B ZeRO-3 held 120.5 GiB allocated
 * between steps (16.1 B/param), Llama-3.2-1B ZeRO-2 16.2 GiB (14.1 B/param).
 *   ZeRO-3: bf16 parameter partition 2P/G, fp32 master + Adam m, v 12P/G, bf16 gradient partition 2P/G
 *           (grad_partitions_flat_buffer), one fp32 sub-group gradient 4·min(sub_group_size, P/G), and the
 *           gathered layer + its prefetch (the estimator's 4 B × largest layer).
 *   ZeRO-1/2: whole bf16 parameters 2P, fp32 master + m + v 12P/G, bf16 gradients (ZeRO-2: the partition
 *           2P/G; ZeRO-1: all of them, 2P), and in step() the fp32 gradient partition 4P/G — a phase of its
 *           own, after backward has freed the activations: only what exceeds them counts. step() builds
 *           that fp32 partition as `flatten(averaged_gradients).to(fp32)` (stage_1_and_2.py step: the
 *           flatten copies the gradient views into a new bf16 tensor, freed only after the cast), so
 *           2P/G more is alive at that moment. A ZeRO-2 run of Llama-3.2-3B at micro 4 × seq 2048, whose
 *           peak is this phase, used 65.9 GiB on the H200 and on an H100; without the copy the model
 *           said 59.8 (the run prompted the term: its error is a validation figure, not a test figure).
 */
export function zeroStatesWithoutOffload(stage: number, p: ParamCount, G: number, knobs: ThroughputKnobs): GpuStates {
  const P = p.total;
  const perRank = P / G;
  if (stage === 3) {
    const subGroup = Math.min(knobs.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size, perRank);
    return {
      terms: {
        paramsBf16: Math.round(2 * perRank),
        optimizerStates: Math.round(12 * perRank),
        gradientsBf16: Math.round(2 * perRank),
        fp32SubGroupGradient: Math.round(4 * subGroup),
        gatheredLayer: 4 * p.largestLayer,
      },
      backwardGradients: 0,
      stepGradients: 0,
    };
  }
  const grads = Math.round(stage === 1 ? 2 * P : 2 * perRank);
  return {
    terms: { paramsBf16: Math.round(2 * P), optimizerStates: Math.round(12 * perRank) },
    backwardGradients: grads,
    stepGradients: grads + Math.round(4 * perRank) + Math.round(2 * perRank),
  };
}

export const noOffload: Mechanism = {
  id: 'no-offload',
  title: 'ZeRO without offload',
  covers: (s) => s.engine === 'deepspeed' && s.offloadOptimizer === 'none' && s.offloadParam === 'none',
  withoutGpu: 'forced',
  hasCoresKnob: false,
  resolveKnobs: (s: StrategyPreset, _w: Workload, k: Knobs) => zeroCommonKnobs(s, k),
  validateConfig: (config, w) => validateDsConfig(config, w),
  emitConfig: (s, w, k) => deepSpeedConfig(s, w, k),
  readKnobs: readZeroKnobs,
  knobSpace: ({ s, machine }) => zeroKnobSpace(s, machine),
  cpuShare: () => 0,
  pinnedHostTerms: [],
  // DeepSpeed has no stage-1 estimator: ZeRO-1 reports the ZeRO-2 figure (memory adds its whole gradients)
  estimatorCall: (s) => ({ estimator: s.stage === 3 ? 'zero3' : 'zero2', cpuOffload: false, cpuOffloadParams: false }),
  memory: (ctx) => {
    const host: Record<string, number> = {};
    // At engine init DeepSpeed 0.19 moves each rank's bf16 parameter partition into one flat GPU buffer
    // through a host tensor of the partition's size (zero/utils.py `defragment`): the process's
    // high-water mark holds 2 B per parameter of the node's partitions. Stage 1/2 build nothing on the
    // host (the runner builds on the meta device).
    if (ctx.s.stage === 3) host.defragmentHostCopy = Math.round(2 * ctx.perNodeParams);
    return { gpu: zeroStatesWithoutOffload(ctx.s.stage, ctx.p, ctx.G, ctx.knobs), commBytes: zeroCommBytes(ctx, false), host, nvme: {} };
  },
  time: (ctx) => ({
    ...NO_TIME_TERMS,
    collectives: zeroCollectives(ctx.s),
    ...zeroOverlaps(ctx),
    // the optimizer step on the GPU + every micro step's gradient copies into the reduce bucket and partition
    gpuStepBytes: gpuStepBytes(ctx) + ctx.w.gradAccum * ctx.p.total * THROUGHPUT_CONSTANTS.gpuGradientCopyBytesPerParam,
    fetchSeconds: ctx.s.stage === 3 ? zero3HookSeconds(ctx) : 0,
  }),
};
