// Memory of one strategy × workload: DeepSpeed's model-state estimators (reported as they are)
// plus what they leave out — activations, communication and pinned buffers, gradients ZeRO-1
// keeps whole, SuperOffload's GPU share of the optimizer, and a stated framework overhead.
// GPU figures per GPU, host and NVMe figures per node. docs/tuner-model.md states every term.
import type { MemoryEstimate, ModelArch, StrategyPreset, Workload } from '../../../contract';
import { worldSize } from '../../../contract';
import { SEED_ZERO_KEYS } from '../config/config-defaults';
import { mechanismOf } from '../mechanisms';
import type { ThroughputKnobs } from './throughput';
import { estimateZero2, estimateZero3 } from './estimators';
import { probedActivations, type WorkloadKernels } from './kernels';
import type { ParamCount } from './params';

export { MEMORY_CONSTANTS } from './memory-constants';
import { MEMORY_CONSTANTS } from './memory-constants';

/** Activation bytes of one transformer block per token (bf16, fused SDPA/flash attention: no s² scores). */
export function layerActivationBytesPerToken(m: ModelArch): number {
  const h = m.hiddenSize;
  const q = m.numHeads * m.headDim;
  const kv = m.numKvHeads * m.headDim;
  // attention block: norm input + norm output, q, k, v, attention output
  const attn = 2 * h + 2 * q + 2 * kv;
  // MLP block: norm input + norm output, then gate, up, act(gate), act·up (gated) or fc, gelu (gpt2)
  const mlp = 2 * h + (m.family === 'gpt2' ? 2 : 4) * m.intermediateSize;
  return 2 * (attn + mlp);
}

export interface ActivationBytes {
  total: number;
  /** Everything but the logits: the checkpointed block inputs (or all blocks' activations) + embeddings. */
  layers: number;
  /** Checkpointing: what lives through the whole backward (each block's input + embeddings); without it, all of `layers`. */
  kept: number;
  /** Checkpointing: one block's activations, recomputed in backward (0 without). */
  recompute: number;
  logits: number;
}

export function activationBytes(
  m: ModelArch,
  w: Pick<Workload, 'seqLen' | 'microBatch' | 'activationCheckpointing'>,
  kernels?: WorkloadKernels,
): ActivationBytes {
  const tokens = w.seqLen * w.microBatch;
  const embeddings = 2 * m.hiddenSize * tokens;
  if (kernels) {
    // the workload's own layer and head on this GPU (kernels.ts): every layer keeps what the probed one
    // kept for its backward (checkpointing: its bf16 output), one layer's backward needs its peak above
    // that, the loss the head's peak (which holds the embedding output too, counted in `kept` as well:
    // 2·h bytes a token against the logits' 12·V or more)
    const probed = probedActivations(kernels, w.microBatch);
    const layers = probed.kept + probed.recompute;
    return {
      total: layers + embeddings + probed.logits,
      layers: layers + embeddings,
      kept: probed.kept + embeddings,
      recompute: probed.recompute,
      logits: probed.logits,
    };
  }
  const perLayer = layerActivationBytesPerToken(m) * tokens;
  // checkpointing keeps each block's bf16 input and recomputes one block at a time in backward
  const layers = w.activationCheckpointing ? m.numLayers * 2 * m.hiddenSize * tokens + perLayer : m.numLayers * perLayer;
  const logits = MEMORY_CONSTANTS.logitBytes * m.vocabSize * tokens;
  const recompute = w.activationCheckpointing ? perLayer : 0;
  return { total: layers + embeddings + logits, layers: layers + embeddings, kept: layers + embeddings - recompute, recompute, logits };
}

export { zeroStatesWithoutOffload } from '../mechanisms';

/** DeepSpeed's estimator for the strategy, as its mechanism calls it (Mechanism.estimatorCall). */
export function modelStatesFor(s: StrategyPreset, p: ParamCount, w: Workload, label = true): MemoryEstimate['modelStates'] {
  const { estimator, cpuOffload: offload, cpuOffloadParams: params } = mechanismOf(s).estimatorCall(s);
  if (estimator === 'zero3') {
    const r = estimateZero3(p.total, p.largestLayer, w.gpus, w.nodes, offload, params, true, 1.5);
    return {
      gpuBytes: r.gpuBytes,
      hostBytes: r.cpuBytes,
      estimator: !label
        ? ''
        : `estimate_zero3_model_states_mem_needs(total_params=${p.total}, largest_layer_params=${p.largestLayer}, num_gpus_per_node=${w.gpus}, num_nodes=${w.nodes}, cpu_offload=${offload ? 'True' : 'False'}, cpu_offload_params=${params ? 'True' : 'False'}, zero_init=True, additional_buffer_factor=1.5)`,
    };
  }
  const r = estimateZero2(p.total, w.gpus, w.nodes, offload, 1.5);
  return {
    gpuBytes: r.gpuBytes,
    hostBytes: r.cpuBytes,
    estimator: !label
      ? ''
      : `estimate_zero2_model_states_mem_needs(total_params=${p.total}, num_gpus_per_node=${w.gpus}, num_nodes=${w.nodes}, cpu_offload=${offload ? 'True' : 'False'}, additional_buffer_factor=1.5)`,
  };
}

/**
 * `label` false skips the estimator call text (the micro-batch search does not show it). `knobs`: the
 * config's settings (ratio keeps 1 − ratio of the optimizer on the GPU; overlap_comm adds a bucket;
 * FSDP2 without reshard-after-forward keeps each layer's gathered params to backward).
 */
export function estimateMemory(
  s: StrategyPreset,
  m: ModelArch,
  p: ParamCount,
  w: Workload,
  label = true,
  knobs: ThroughputKnobs = {},
): MemoryEstimate {
  const P = p.total;
  const G = worldSize(w);
  const states = modelStatesFor(s, p, w, label);
  const act = activationBytes(m, w, p.kernels);
  const mechanism = mechanismOf(s);
  const mt = mechanism.memory({
    s,
    m,
    p,
    w,
    knobs,
    r: mechanism.cpuShare(s, knobs, P / G),
    G,
    perNodeParams: P / w.nodes,
    estimator: states,
    bucket: knobs.reduceBucketSize ?? SEED_ZERO_KEYS.reduce_bucket_size,
  });

  // GPU, phase by phase: what stays allocated all step (the mechanism's model states), then the largest
  // of three phases — the loss (kept activations + logits at the loss), backward (kept activations + one
  // block's recompute + gradients as they are produced + the communication buffers) and the optimizer
  // step (ZeRO-1/2: the bf16 gradients and the fp32 gradient partition, activations gone).
  const gpuTerms: Record<string, number> = { ...mt.gpu.terms };
  gpuTerms.activations = act.kept;
  const phases = {
    'phase:loss': act.logits,
    'phase:backward': act.recompute + mt.gpu.backwardGradients + mt.commBytes,
    'phase:step': mt.gpu.stepGradients - act.kept,
  };
  const [phase, phaseBytes] = Object.entries(phases).sort((a, b) => b[1] - a[1])[0];
  gpuTerms[phase] = Math.max(0, Math.round(phaseBytes));
  const allocatedTerms = Object.values(gpuTerms).reduce((a, b) => a + b, 0);
  gpuTerms.allocatorBlock = Math.round(MEMORY_CONSTANTS.allocatorBlockBytesPerLogit * m.vocabSize * w.seqLen * w.microBatch);
  gpuTerms.framework = Math.round(MEMORY_CONSTANTS.gpuFrameworkBytes);

  // host (steady state: what a run holds, not what loading may take) and NVMe: the mechanism's, plus the processes
  const hostTerms: Record<string, number> = { ...mt.host, processes: w.gpus * MEMORY_CONSTANTS.hostProcessBytes };
  const nvmeTerms: Record<string, number> = { ...mt.nvme };

  const sum = (t: Record<string, number>) => Object.values(t).reduce((a, b) => a + b, 0);
  return {
    gpuBytes: Math.round(sum(gpuTerms)),
    gpuAllocatedBytes: Math.round(allocatedTerms),
    hostBytes: Math.round(sum(hostTerms)),
    nvmeBytes: Math.round(sum(nvmeTerms)),
    modelStates: states,
    gpuTerms,
    hostTerms,
    nvmeTerms,
  };
}
