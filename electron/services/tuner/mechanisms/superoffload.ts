// SuperOffload (DeepSpeed 0.19 superoffload/): ZeRO-3 with the optimizer on the CPU, stepped per
// sub-group by a CPU Adam worker process on `cpuadam_cores_perc` of the cores as backward completes
// each sub-group (unless gradient clipping is on), with `ratio` of the optimizer on the CPU.
import { finiteNumber } from '../../../contract';
import { validateDsConfig } from '../config/validate-config';
import { MEMORY_CONSTANTS } from '../model/memory-constants';
import {
  DEFAULT_CPUADAM_CORES_PERC,
  RATIO_CANDIDATES,
  SEED_ZERO_KEYS,
  SUB_GROUP_CANDIDATES,
  SUPER_OFFLOAD_RATIO,
} from '../config/config-defaults';
import { coresPercCandidates } from './cores';
import type { Mechanism } from './types';
import { zero3CpuOptimizerHost } from './optimizer-offload';
import {
  deepSpeedConfig,
  effectiveGradientClipping,
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

export const superOffload: Mechanism = {
  id: 'superoffload',
  title: 'SuperOffload',
  covers: (s) => s.engine === 'deepspeed' && s.superOffload,
  withoutGpu: 'never',
  hasCoresKnob: true,
  planWarnings: (s, w, hw) => [
    effectiveGradientClipping(s, w) === 0
      ? 'gradient_clipping 0.0: no gradient-norm clipping, so a loss spike is not damped — the price of overlapping CPU Adam with backward (DeepSpeed ≥ 0.18.9 turns the overlap off under any clipping)'
      : `gradient_clipping ${effectiveGradientClipping(s, w)}: SuperOffload's overlap is off, the CPU Adam step runs serially in step()`,
    ...(/gh200|gb200|mi300a/i.test(hw.gpuName ?? '')
      ? []
      : ['SuperOffload is designed for superchips (GH200/GB200/MI300A); on PCIe hosts its gain is limited (DeepSpeed issue #7966)']),
  ],
  resolveKnobs: (s, w, k) => ({
    ...zeroCommonKnobs(s, k),
    ratio: k.ratio ?? SUPER_OFFLOAD_RATIO,
    cpuadamCoresPerc: k.cpuadamCoresPerc ?? w.cpuadamCoresPerc ?? DEFAULT_CPUADAM_CORES_PERC,
  }),
  validateConfig: (config, w) => validateDsConfig(config, w),
  emitConfig: (s, w, k) =>
    deepSpeedConfig(s, w, k, {
      offload_optimizer: {
        device: 'cpu',
        pin_memory: k.pinMemory ?? true,
        ratio: k.ratio,
        super_offload: true,
        cpuadam_cores_perc: k.cpuadamCoresPerc,
      },
    }),
  readKnobs: (parts) => {
    const knobs = readZeroKnobs(parts);
    const off = parts.offloadOptimizer;
    if (off && off.super_offload === true && finiteNumber(off.cpuadam_cores_perc) !== undefined)
      knobs.cpuadamCoresPerc = finiteNumber(off.cpuadam_cores_perc);
    return knobs;
  },
  knobSpace: ({ s, w, hw, machine, fixedPerc }) => {
    const space = zeroKnobSpace(s, machine);
    space.base.ratio = SUPER_OFFLOAD_RATIO;
    space.axes.push(['ratio', [SUPER_OFFLOAD_RATIO, ...RATIO_CANDIDATES.filter((r) => r < 1 && r !== SUPER_OFFLOAD_RATIO)]]);
    const percs = fixedPerc !== undefined ? [fixedPerc] : coresPercCandidates(hw, w.gpus);
    space.base.cpuadamCoresPerc = fixedPerc ?? percs[percs.length - 1];
    space.axes.push(['cpuadamCoresPerc', percs]);
    space.base.subGroupSize = SEED_ZERO_KEYS.sub_group_size;
    space.axes.push([
      'subGroupSize',
      [SEED_ZERO_KEYS.sub_group_size, ...SUB_GROUP_CANDIDATES.filter((g) => g !== SEED_ZERO_KEYS.sub_group_size)],
    ]);
    return space;
  },
  cpuShare: (_s, knobs, perRank) => stage3CpuShare(knobs, perRank, SUPER_OFFLOAD_RATIO),
  pinnedHostTerms: ['cpuOptimizerStates'],
  estimatorCall: () => ({ estimator: 'zero3', cpuOffload: true, cpuOffloadParams: false }),
  memory: (ctx) => ({
    gpu: { terms: { modelStates: ctx.estimator.gpuBytes, ...gpuOptimizerShare(ctx) }, backwardGradients: 0, stepGradients: 0 },
    commBytes: zeroCommBytes(ctx, true),
    host: {
      ...zero3CpuOptimizerHost(ctx),
      // the fp32 partition the worker maps in shared memory (counted in both processes' RSS) and its process
      superOffloadShared: Math.round(MEMORY_CONSTANTS.superOffloadHostBytesPerCpuParam * ctx.r * ctx.perNodeParams),
      adamWorkers: ctx.w.gpus * MEMORY_CONSTANTS.hostAdamWorkerBytes,
    },
    nvme: {},
  }),
  time: (ctx) => {
    const { s, w, r, G } = ctx;
    const cores = Math.max(1, ctx.hw.physicalCores);
    const P = ctx.p.total;
    const A = w.gradAccum;
    return {
      ...NO_TIME_TERMS,
      collectives: 'sharded',
      ...offloadedOptimizerTraffic(ctx),
      // partition_grads (superoffload_stage3.py) moves every gradient partition three times: down into the pinned
      // fp32 grad buffer, back up for its norm (`grad_buffer.to(grad_partition.device)`), and, for a CPU sub-group
      // at the accumulation boundary, down again into the fp32 partition — 8 B/param each micro step + 4 B per CPU
      // parameter — and blocks the host on the stream at every completed sub-group (`synchronize()`), so
      // nothing queues behind the copies: they are not hidden behind backward.
      pinnedBytes: (8 * P * A + 4 * r * P) / G,
      gpuStepBytes: gpuStepBytes(ctx),
      fetchSeconds: zero3HookSeconds(ctx) + subGroupSeconds(ctx),
      // the worker copies each sub-group's fp32 gradient into its pinned buffer (superoffload_utils.py).
      // The updated partition comes back as the same shared storage, and torch's copy_ returns early when
      // source and destination are the same data (ATen Copy.cpp), so the trainer copies nothing back.
      workerCopyBytes: (8 * r * ctx.p.total) / G,
      cpuAdam: { threads: Math.max(1, Math.round(cores * ctx.perc)), rateFactor: 1 },
      // each sub-group steps during backward unless gradient clipping is on (DeepSpeed ≥ 0.18.9 then steps
      // in step())
      cpuStepOverlap: effectiveGradientClipping(s, w) !== 0 ? 0 : s.cpuStepOverlap,
      streamOverlap: 0, // the gradient copies above: the host waits on them, whatever overlap_comm says
      commOverlap: zeroOverlaps(ctx).commOverlap,
    };
  },
};
