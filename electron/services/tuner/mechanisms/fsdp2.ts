// FSDP2 with CPUOffloadPolicy (torch): fp32 parameter, gradient and Adam shards on the CPU, stepped by
// torch's AdamW there (fused by default, resources/engine/fsdp_engine.py); each layer's parameters are
// copied up per unshard (forward, backward) and its gradients down. The runner's config is its `fsdp` block.
import { validateFsdpBlock } from '../config/validate-config';
import { MEMORY_CONSTANTS } from '../model/memory-constants';
import type { HardwareProfile } from '../../../contract';
import { cpuAdamRate } from '../catalogue/profile';
import { FSDP_CPU_ADAM_IMPL_DEFAULT, THROUGHPUT_CONSTANTS, type ThroughputKnobs, type TorchAdamImpl } from '../model/throughput-constants';
import type { Mechanism } from './types';
import { bool, lockedMemoryOk, NO_TIME_TERMS } from './zero-common';

/**
 * torch's AdamW step rate as a share of the host's CPU Adam sweep (the throughput model scales that sweep):
 * this host's measured rate of that implementation over the sweep at the thread count it was measured at,
 * else the H200 host's ratio (an assumption the profile's sources.torchAdam names). That host measured no
 * foreach rate, so an unmeasured foreach steps at the plain loop's ratio: a floor, never a guess above it.
 */
export function torchAdamRateFactor(hw: HardwareProfile, impl: TorchAdamImpl): number {
  const measured = hw.torchAdam?.[impl];
  if (hw.torchAdam && measured) return measured / cpuAdamRate(hw, hw.torchAdam.threads);
  return impl === 'fused' ? THROUGHPUT_CONSTANTS.torchFusedAdamFactor : THROUGHPUT_CONSTANTS.torchPlainAdamFactor;
}

const TORCH_ADAM_IMPLS: readonly TorchAdamImpl[] = ['fused', 'foreach', 'plain'];

/** The implementation a config's optimizer block names: the runner's own `implementation` (what it stepped
 *  with), else torch's flags — fused=True, else foreach=True, else the per-tensor loop (torch's default for CPU
 *  tensors: the first dataset's `fused: false` configs). Nothing said: undefined (the runner's default). */
function torchAdamImplOf(opt: Record<string, unknown>): TorchAdamImpl | undefined {
  if (TORCH_ADAM_IMPLS.includes(opt.implementation as TorchAdamImpl)) return opt.implementation as TorchAdamImpl;
  const fused = bool(opt.fused);
  if (fused === undefined) return undefined;
  return fused ? 'fused' : bool(opt.foreach) ? 'foreach' : 'plain';
}

export const fsdp2Offload: Mechanism = {
  id: 'fsdp2',
  title: 'FSDP2 CPU offload',
  covers: (s) => s.engine === 'fsdp2',
  withoutGpu: 'never',
  hasCoresKnob: false,
  resolveKnobs: (_s, _w, k) => ({ reshardAfterForward: k.reshardAfterForward ?? true }),
  validateConfig: (config) => validateFsdpBlock(config),
  emitConfig: (_s, _w, k) => ({ cpuOffload: true, reshardAfterForward: k.reshardAfterForward ?? true }),
  readKnobs: ({ config, fsdp }) => {
    const knobs: ThroughputKnobs = {};
    if (fsdp && bool(fsdp.reshardAfterForward) !== undefined) knobs.reshardAfterForward = bool(fsdp.reshardAfterForward);
    const opt = config.optimizer && typeof config.optimizer === 'object' ? (config.optimizer as Record<string, unknown>) : null;
    const impl = opt ? torchAdamImplOf(opt) : undefined;
    if (impl) knobs.torchAdamImpl = impl;
    return knobs;
  },
  knobSpace: ({ machine }) => ({
    base: { pinMemory: lockedMemoryOk(machine), reshardAfterForward: true },
    axes: [['reshardAfterForward', [true, false]]],
  }),
  cpuShare: () => 1,
  pinnedHostTerms: ['offloadedStates'],
  // no estimator of its own: the equivalent ZeRO-3 with optimizer and parameters on the CPU
  estimatorCall: () => ({ estimator: 'zero3', cpuOffload: true, cpuOffloadParams: true }),
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
    const impl = ctx.knobs.torchAdamImpl ?? FSDP_CPU_ADAM_IMPL_DEFAULT;
    return {
      ...NO_TIME_TERMS,
      collectives: 'sharded',
      // fp32 shards up per unshard (forward, backward), fp32 grads down
      pinnedBytes: (4 * 2 * P * A + 4 * P * A) / ctx.G,
      // C++ all-gather/reshard hooks, no Python bookkeeping per parameter: a share of ZeRO-3's
      fetchSeconds: P * ctx.passes * A * THROUGHPUT_CONSTANTS.zero3ParamPassSeconds * THROUGHPUT_CONSTANTS.fsdpLayerFactor,
      cpuAdam: {
        threads: Math.max(1, ctx.hw.physicalCores),
        rateFactor: torchAdamRateFactor(ctx.hw, impl),
      },
      cpuStepOverlap: ctx.s.cpuStepOverlap,
      streamOverlap: ctx.s.transferOverlap,
      commOverlap: ctx.s.commOverlap,
    };
  },
};
