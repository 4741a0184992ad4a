// FSDP2 with CPUOffloadPolicy (torch): fp32 parameter, gradient and Adam shards on the CPU, stepped by
// torch's AdamW there (fused by default, resources/engine/fsdp_engine.py); each layer's parameters are
// copied up per unshard (forward, backward) and its gradients down. The runner's config is its `fsdp` block.
import { MEMORY_CONSTANTS } from '../memory-constants';
import type { HardwareProfile } from '../../../contract';
import { cpuAdamRate } from '../profile';
import { FSDP_CPU_ADAM_FUSED_DEFAULT, THROUGHPUT_CONSTANTS, type ThroughputKnobs } from '../throughput-constants';
import type { Mechanism } from './types';
import { bool, lockedMemoryOk, NO_TIME_TERMS } from './zero-common';

/**
 * torch's AdamW step rate as a share of the host's CPU Adam sweep (the throughput model scales that sweep):
 * this host's measured torch rate over the sweep at the thread count it was measured at, else the H200
 * host's ratio (an assumption the profile's sources.torchAdam names). The plain loop's measured rate stands
 * in for a run whose implementation is not fused.
 */
export function torchAdamRateFactor(hw: HardwareProfile, fused: boolean): number {
  const measured = fused ? hw.torchAdam?.fused : hw.torchAdam?.plain;
  if (hw.torchAdam && measured) return measured / cpuAdamRate(hw, hw.torchAdam.threads);
  return fused ? THROUGHPUT_CONSTANTS.torchFusedAdamFactor : THROUGHPUT_CONSTANTS.torchPlainAdamFactor;
}

export const fsdp2Offload: Mechanism = {
  id: 'fsdp2',
  title: 'FSDP2 CPU offload',
  covers: (s) => s.engine === 'fsdp2',
  withoutGpu: 'never',
  hasCoresKnob: false,
  resolveKnobs: (_s, _w, k) => ({ reshardAfterForward: k.reshardAfterForward ?? true }),
  emitConfig: (_s, _w, k) => ({ cpuOffload: true, reshardAfterForward: k.reshardAfterForward ?? true }),
  readKnobs: ({ config, fsdp }) => {
    const knobs: ThroughputKnobs = {};
    if (fsdp && bool(fsdp.reshardAfterForward) !== undefined) knobs.reshardAfterForward = bool(fsdp.reshardAfterForward);
    const opt = config.optimizer && typeof config.optimizer === 'object' ? (config.optimizer as Record<string, unknown>) : null;
    if (opt && bool(opt.fused) !== undefined) knobs.torchAdamFused = bool(opt.fused);
    return knobs;
  },
  knobSpace: ({ machine }) => ({
    base: { pinMemory: lockedMemoryOk(machine), reshardAfterForward: true },
    axes: [['reshardAfterForward', [true, false]]],
  }),
  cpuShare: () => 1,
  memory: (ctx) => {
    const terms: Record<string, number> = { modelStates: ctx.estimator.gpuBytes };
    // without reshard-after-forward each layer's gathered parameters stay to backward
    if (ctx.knobs.reshardAfterForward === false) terms.unshardedParams = Math.round(2 * ctx.p.total * (1 - 1 / ctx.G));
    return {
      gpu: { terms, backwardGradients: 0, stepGradients: 0 },
      // a layer's gathered parameters and gradients (its H200 runs were over by 7–12% once the logits counted 12 B)
      commBytes: 2 * (2 * ctx.p.perLayer),
      host: { offloadedStates: Math.round(MEMORY_CONSTANTS.fsdpHostBytesPerParam * ctx.perNodeParams) },
      nvme: {},
    };
  },
  time: (ctx) => {
    const P = ctx.p.total;
    const A = ctx.w.gradAccum;
    const fused = ctx.knobs.torchAdamFused ?? FSDP_CPU_ADAM_FUSED_DEFAULT;
    return {
      ...NO_TIME_TERMS,
      // fp32 shards up per unshard (forward, backward), fp32 grads down
      pinnedBytes: (4 * 2 * P * A + 4 * P * A) / ctx.G,
      // C++ all-gather/reshard hooks, no Python bookkeeping per parameter: a share of ZeRO-3's
      fetchSeconds: P * ctx.passes * A * THROUGHPUT_CONSTANTS.zero3ParamPassSeconds * THROUGHPUT_CONSTANTS.fsdpLayerFactor,
      cpuAdam: {
        threads: Math.max(1, ctx.hw.physicalCores),
        rateFactor: torchAdamRateFactor(ctx.hw, fused),
      },
      cpuStepOverlap: ctx.s.cpuStepOverlap,
      streamOverlap: ctx.s.transferOverlap,
      commOverlap: ctx.s.commOverlap,
    };
  },
};
