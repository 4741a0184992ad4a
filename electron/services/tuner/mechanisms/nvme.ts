// ZeRO-Infinity: the optimizer states (and the parameters) swapped to NVMe through pinned host buffers
// and libaio; the host keeps fp32 gradient partitions. DeepSpeed's estimator knows nothing of NVMe, so
// the host and NVMe terms are what the swapper allocates (stage3.py, swap_tensor/).
import { validateDsConfig } from '../config/validate-config';
import { DEFAULT_NVME_PATH, SEED_ZERO_KEYS } from '../config/config-defaults';
import type { JsonObject, Mechanism } from './types';
import {
  deepSpeedConfig,
  deepSpeedCpuAdam,
  gpuStepBytes,
  NO_TIME_TERMS,
  offloadedOptimizerTraffic,
  readZeroKnobs,
  subGroupSeconds,
  zero3HookSeconds,
  zeroCommBytes,
  zeroCommonKnobs,
  zeroKnobSpace,
  zeroOverlaps,
} from './zero-common';

const AIO = { block_size: 1048576, queue_depth: 8, single_submit: false, overlap_events: true, thread_count: 1 };

export const nvmeOffload: Mechanism = {
  id: 'nvme',
  title: 'ZeRO-Infinity (NVMe)',
  covers: (s) => s.engine === 'deepspeed' && (s.offloadOptimizer === 'nvme' || s.offloadParam === 'nvme'),
  withoutGpu: 'never',
  hasCoresKnob: false,
  resolveKnobs: (s, _w, k) => zeroCommonKnobs(s, k),
  validateConfig: (config, w) => validateDsConfig(config, w),
  emitConfig: (s, w, k) => {
    const nvmePath = w.nvmePath ?? DEFAULT_NVME_PATH;
    const pin = k.pinMemory ?? true;
    const zero: JsonObject = {};
    if (s.offloadOptimizer === 'nvme')
      zero.offload_optimizer = {
        device: 'nvme',
        nvme_path: nvmePath,
        pin_memory: pin,
        buffer_count: 4,
        pipeline_read: false,
        pipeline_write: false,
      };
    else if (s.offloadOptimizer === 'cpu') zero.offload_optimizer = { device: 'cpu', pin_memory: pin };
    if (s.offloadParam === 'nvme')
      zero.offload_param = { device: 'nvme', nvme_path: nvmePath, pin_memory: pin, buffer_count: 5, buffer_size: 1e8, max_in_cpu: 1e9 };
    else if (s.offloadParam === 'cpu') zero.offload_param = { device: 'cpu', pin_memory: pin };
    return deepSpeedConfig(s, w, k, zero, { aio: { ...AIO } });
  },
  readKnobs: readZeroKnobs,
  knobSpace: ({ s, machine }) => zeroKnobSpace(s, machine),
  cpuShare: () => 1,
  pinnedHostTerms: ['pinnedSwapBuffers'],
  // the estimator knows no NVMe: it is asked as if the offloaded states were on the CPU
  estimatorCall: (s) => ({ estimator: 'zero3', cpuOffload: true, cpuOffloadParams: s.offloadParam !== 'none' }),
  memory: (ctx) => {
    const { s, perNodeParams, w } = ctx;
    // The host keeps fp32 gradient partitions (+ bf16 params if they stay on CPU) and pinned swap buffers; the states live on NVMe.
    const host: Record<string, number> = { fp32Gradients: 4 * perNodeParams };
    if (s.offloadParam === 'cpu') host.paramsBf16 = 2 * perNodeParams;
    host.pinnedSwapBuffers = w.gpus * (4 * SEED_ZERO_KEYS.sub_group_size * 4 + (s.offloadParam === 'nvme' ? 5 * 1e8 * 2 : 0));
    const nvme: Record<string, number> = {};
    if (s.offloadOptimizer === 'nvme') nvme.optimizerStates = 12 * perNodeParams; // fp32 params, Adam m and v
    if (s.offloadParam === 'nvme') nvme.paramsBf16 = 2 * perNodeParams;
    return {
      gpu: { terms: { modelStates: ctx.estimator.gpuBytes }, backwardGradients: 0, stepGradients: 0 },
      commBytes: zeroCommBytes(ctx, true),
      host,
      nvme,
    };
  },
  time: (ctx) => {
    const P = ctx.p.total;
    const { s, w } = ctx;
    // per node, one drive: optimizer states read and written once per step (24 B/param); params read per pass
    const nvmeBytes =
      (s.offloadOptimizer === 'nvme' ? (24 * P) / w.nodes : 0) + (s.offloadParam === 'nvme' ? (2 * 2 * P * w.gradAccum) / w.nodes : 0);
    const traffic = offloadedOptimizerTraffic(ctx);
    return {
      ...NO_TIME_TERMS,
      collectives: 'sharded',
      ...zeroOverlaps(ctx),
      ...traffic,
      pinnedBytes: traffic.pinnedBytes + (s.offloadParam === 'cpu' ? (2 * 2 * P * w.gradAccum) / ctx.G : 0),
      gpuStepBytes: gpuStepBytes(ctx),
      fetchSeconds: zero3HookSeconds(ctx) + subGroupSeconds(ctx),
      cpuAdam: deepSpeedCpuAdam(ctx),
      nvmeBytes,
    };
  },
};
