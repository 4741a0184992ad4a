// Memory of one strategy × workload: DeepSpeed's model-state estimators (reported as they are)
// plus what they leave out — activations, communication and pinned buffers, gradients ZeRO-1
// keeps whole, SuperOffload's GPU share of the optimizer, and a stated framework overhead.
// GPU figures per GPU, host and NVMe figures per node. docs/tuner-model.md states every term.
import type { MemoryEstimate, ModelArch, StrategyPreset, Workload } from '../../contract';
import { SEED_ZERO_KEYS } from './ds-config';
import { cpuRatio, type ThroughputKnobs } from './throughput';
import { estimateZero2, estimateZero3 } from './estimators';
import type { ParamCount } from './params';

const GiB = 2 ** 30;

export const MEMORY_CONSTANTS = {
  /** CUDA context, cuBLAS/cuDNN workspaces, NCCL channels: per GPU, outside the caching allocator's count. */
  gpuFrameworkBytes: 1.5 * GiB,
  /**
   * The caching allocator needs one free block as large as the largest transient tensor beyond the
   * allocated peak: blocks freed by earlier, smaller tensors cannot be merged into it. The largest
   * transient is the fp32 logits of a micro batch (4 B per element). Issue 25's probes on one H200:
   * Llama-3.2-1B at seq 16384 ran out with 113.7 GiB allocated while asking for its 31 GiB logits
   * block; Llama-3.1-8B at seq 4096, micro 2, ran at 134.5 GiB allocated of 140.4 (its block: 3.9 GiB).
   * It replaces an earlier 5% fragmentation term + 35% of the transient bytes, which called both 8B
   * runs "does not fit".
   */
  allocatorBlockBytesPerLogit: 4,
  /** Python, torch, CUDA host libraries, the runner: per rank. 2 GiB: the H200 sample's ZeRO-2 runs peaked at 1.8–1.9 GiB host RSS. */
  hostProcessBytes: 2 * GiB,
  /**
   * FSDP2 + CPUOffloadPolicy host bytes per parameter: fp32 params, grads, Adam m and v (16 B) × 1.25
   * for pinned staging and allocator slack — the H200 sample's FSDP2 runs peaked at 20.8 B/param.
   */
  fsdpHostBytesPerParam: 20,
  /** ZeRO-3 CPU optimizer offload host bytes (H200 tuned sweep, ratios 0.11 / 0.56 / 1: 18.6 / 36.5 / 62.4 GiB for 3.2 B params). */
  zero3HostBytesPerCpuParam: 16,
  zero3HostBytesPerParam: 3.5,
  /** SuperOffload on top, per CPU-share parameter (H200: 76.4 GiB at ratio 1, 18.9 at 0.11). */
  superOffloadHostBytesPerCpuParam: 5.6,
  /** SuperOffload's CPU Adam worker process: per rank. */
  hostAdamWorkerBytes: 2 * GiB,
  /**
   * Bytes per logit element at the loss (resources/engine/model.py): the bf16 logits (2), the bf16 copy
   * the shifted slice makes (2), the fp32 upcast cross_entropy reads (4) and the fp32 log-softmax it saves
   * for backward (4); in its backward the fp32 gradient and its bf16 cast take the place of the copies.
   * Issue 25's H200 probes moved 12.0 (Llama-3.2-1B, seq 16384) and 12.3 B (Llama-3.1-8B, seq 4096) per
   * element per added sample — layer inputs included. The earlier 10 left out the slice's copy.
   */
  logitBytes: 12,
  /** Headroom kept free when deciding "fits" on the host and NVMe (the GPU's margin is the memory error band: fit.ts). */
  hostHeadroom: 0.05,
  nvmeHeadroom: 0.1,
} as const;

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

export function activationBytes(m: ModelArch, w: Pick<Workload, 'seqLen' | 'microBatch' | 'activationCheckpointing'>): ActivationBytes {
  const tokens = w.seqLen * w.microBatch;
  const perLayer = layerActivationBytesPerToken(m) * tokens;
  // checkpointing keeps each block's bf16 input and recomputes one block at a time in backward
  const layers = w.activationCheckpointing ? m.numLayers * 2 * m.hiddenSize * tokens + perLayer : m.numLayers * perLayer;
  const embeddings = 2 * m.hiddenSize * tokens;
  const logits = MEMORY_CONSTANTS.logitBytes * m.vocabSize * tokens;
  const recompute = w.activationCheckpointing ? perLayer : 0;
  return { total: layers + embeddings + logits, layers: layers + embeddings, kept: layers + embeddings - recompute, recompute, logits };
}

/**
 * GPU model states of DeepSpeed ZeRO without offload, by what DeepSpeed 0.19 allocates (bf16 training,
 * Adam), per GPU. The estimators' 18 B/param (ZeRO-3) and 2 + 18/G (ZeRO-2) count an fp32 gradient of
 * every parameter for the whole step; 0.19 keeps the optimizer's fp32 gradient for one sub-group at a
 * time (stage3.py initialize_optimizer_states: one buffer of the largest sub-group) and, in stage 1/2,
 * the fp32 gradient partition only inside step(). Issue 25's H200 probes: Llama-3.1-8B ZeRO-3 held
 * 120.5 GiB allocated between steps (16.1 B/param), Llama-3.2-1B ZeRO-2 16.2 GiB (14.1 B/param).
 *   ZeRO-3: bf16 parameter partition 2P/G, fp32 master + Adam m, v 12P/G, bf16 gradient partition 2P/G
 *           (grad_partitions_flat_buffer), one fp32 sub-group gradient 4·min(sub_group_size, P/G), and the
 *           gathered layer + its prefetch (the estimator's 4 B × largest layer).
 *   ZeRO-1/2: whole bf16 parameters 2P, fp32 master + m + v 12P/G, bf16 gradients (ZeRO-2: the partition
 *           2P/G; ZeRO-1: all of them, 2P), and in step() the fp32 gradient partition 4P/G — a phase of its
 *           own, after backward has freed the activations: only what exceeds them counts.
 */
export function zeroStatesWithoutOffload(stage: number, p: ParamCount, G: number, knobs: ThroughputKnobs): { states: Record<string, number>; backwardGradients: number; stepGradients: number } {
  const P = p.total;
  const perRank = P / G;
  if (stage === 3) {
    const subGroup = Math.min(knobs.subGroupSize ?? SEED_ZERO_KEYS.sub_group_size, perRank);
    return {
      states: {
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
    states: { paramsBf16: Math.round(2 * P), optimizerStates: Math.round(12 * perRank) },
    backwardGradients: grads,
    stepGradients: grads + Math.round(4 * perRank),
  };
}

/** DeepSpeed's estimator for the strategy (FSDP2 CPU offload: the equivalent ZeRO-3 with optimizer + param offload). */
export function modelStatesFor(s: StrategyPreset, p: ParamCount, w: Workload, label = true): MemoryEstimate['modelStates'] {
  const offload = s.offloadOptimizer !== 'none';
  if (s.stage === 3) {
    const params = s.offloadParam !== 'none';
    const r = estimateZero3(p.total, p.largestLayer, w.gpus, w.nodes, offload, params, true, 1.5);
    return {
      gpuBytes: r.gpuBytes,
      hostBytes: r.cpuBytes,
      estimator: !label ? '' : `estimate_zero3_model_states_mem_needs(total_params=${p.total}, largest_layer_params=${p.largestLayer}, num_gpus_per_node=${w.gpus}, num_nodes=${w.nodes}, cpu_offload=${offload ? 'True' : 'False'}, cpu_offload_params=${params ? 'True' : 'False'}, zero_init=True, additional_buffer_factor=1.5)`,
    };
  }
  // DeepSpeed has no stage-1 estimator: ZeRO-1 reports the ZeRO-2 figure and adds its whole gradients below.
  const r = estimateZero2(p.total, w.gpus, w.nodes, offload, 1.5);
  return {
    gpuBytes: r.gpuBytes,
    hostBytes: r.cpuBytes,
    estimator: !label ? '' : `estimate_zero2_model_states_mem_needs(total_params=${p.total}, num_gpus_per_node=${w.gpus}, num_nodes=${w.nodes}, cpu_offload=${offload ? 'True' : 'False'}, additional_buffer_factor=1.5)`,
  };
}

/**
 * `label` false skips the estimator call text (the micro-batch search does not show it). `knobs`: the
 * config's settings (ratio keeps 1 − ratio of the optimizer on the GPU; overlap_comm adds a bucket;
 * FSDP2 without reshard-after-forward keeps each layer's gathered params to backward).
 */
export function estimateMemory(s: StrategyPreset, m: ModelArch, p: ParamCount, w: Workload, label = true, knobs: ThroughputKnobs = {}): MemoryEstimate {
  const P = p.total;
  const G = w.gpus * w.nodes;
  const states = modelStatesFor(s, p, w, label);
  const act = activationBytes(m, w);
  const bucket = knobs.reduceBucketSize ?? SEED_ZERO_KEYS.reduce_bucket_size;
  const perNodeParams = P / w.nodes;
  const r = cpuRatio(s, knobs, P / G);

  // GPU, phase by phase: what stays allocated all step (static), then the largest of three phases —
  // the loss (kept activations + logits at the loss), backward (kept activations + one block's
  // recompute + gradients as they are produced + the reduce/gather buckets) and the optimizer step
  // (ZeRO-1/2: the bf16 gradients and the fp32 gradient partition, activations gone).
  const gpuTerms: Record<string, number> = {};
  const noOffload = s.engine === 'deepspeed' && s.offloadOptimizer === 'none' && s.offloadParam === 'none';
  let backwardGradients = 0;
  let stepGradients = 0;
  if (noOffload) {
    const z = zeroStatesWithoutOffload(s.stage, p, G, knobs);
    Object.assign(gpuTerms, z.states);
    [backwardGradients, stepGradients] = [z.backwardGradients, z.stepGradients];
  } else gpuTerms.modelStates = states.gpuBytes;
  // ratio < 1 (ZeRO-3 CPU offload, SuperOffload): fp32 master, Adam m, v and the fp32 gradient of the GPU share stay on the GPU
  if (s.engine === 'deepspeed' && s.stage === 3 && s.offloadOptimizer === 'cpu' && r < 1) gpuTerms.gpuOptimizerShare = Math.round(((1 - r) * 16 * P) / G);
  if (s.engine === 'fsdp2' && knobs.reshardAfterForward === false) gpuTerms.unshardedParams = Math.round(2 * P * (1 - 1 / G));
  // Stage 1/2: bf16 reduce bucket + fp32 reduction copy + an all-gather bucket of the same size. Stage 3
  // without offload: the contiguous-gradients bucket (bf16) and the parameter prefetch bucket (5e7 bf16);
  // with offload the estimator's figure above already holds the bucket it knew (kept as calibrated).
  // overlap_comm adds a second reduce bucket. FSDP2: a layer's gathered parameters and gradients. (FSDP2
  // follows the same phases: additive, its H200 runs were over by 7–12% once the logits counted 12 B.)
  const comm =
    s.engine === 'fsdp2'
      ? 2 * (2 * p.perLayer)
      : (s.stage === 3 ? (noOffload ? 2 * bucket + 2 * 5e7 : 6 * bucket + 2 * 5e7) : 8 * bucket) + (knobs.overlapComm ? 2 * bucket : 0);
  gpuTerms.activations = act.kept;
  const phases = { 'phase:loss': act.logits, 'phase:backward': act.recompute + backwardGradients + comm, 'phase:step': stepGradients - act.kept };
  const [phase, phaseBytes] = Object.entries(phases).sort((a, b) => b[1] - a[1])[0];
  gpuTerms[phase] = Math.max(0, Math.round(phaseBytes));
  const allocatedTerms = Object.values(gpuTerms).reduce((a, b) => a + b, 0);
  gpuTerms.allocatorBlock = Math.round(MEMORY_CONSTANTS.allocatorBlockBytesPerLogit * m.vocabSize * w.seqLen * w.microBatch);
  gpuTerms.framework = Math.round(MEMORY_CONSTANTS.gpuFrameworkBytes);

  const hostTerms: Record<string, number> = {};
  const nvmeTerms: Record<string, number> = {};
  if (s.offloadOptimizer === 'nvme') {
    // ZeRO-Infinity: the estimator knows nothing of NVMe. The host keeps fp32 gradient partitions
    // (+ bf16 params if they are offloaded to CPU) and pinned swap buffers; the states live on NVMe.
    hostTerms.fp32Gradients = 4 * perNodeParams;
    if (s.offloadParam === 'cpu') hostTerms.paramsBf16 = 2 * perNodeParams;
    hostTerms.pinnedSwapBuffers = w.gpus * (4 * SEED_ZERO_KEYS.sub_group_size * 4 + (s.offloadParam === 'nvme' ? 5 * 1e8 * 2 : 0));
    nvmeTerms.optimizerStates = 12 * perNodeParams; // fp32 params, Adam m and v
    if (s.offloadParam === 'nvme') nvmeTerms.paramsBf16 = 2 * perNodeParams;
  } else if (s.offloadOptimizer === 'none' && s.offloadParam === 'none') {
    // Steady state: the estimator's host figure (4P·gpn·1.5) is what loading a model at init may take
    // (kept in memory.modelStates); the runner builds on the meta device, so the run holds only its
    // processes (H200 sample, ZeRO-2: 1.9 GiB where the estimator says 18 GiB).
    // ZeRO-3 without parameter offload is different: at init DeepSpeed 0.19 moves every rank's bf16
    // parameter partition into one flat buffer through a host copy (zero/utils.py `defragment`: a
    // CPU tensor of the partition's size, copied back to the GPU), so the process's high-water mark
    // holds 2 B per parameter of its partition — 2 B per parameter per node over its ranks. Not fitted:
    // the H200 runs (8B: 16.1 GiB, 1B: 3.5 GiB peak RSS) read 5% and 23% under this figure.
    if (s.engine === 'deepspeed' && s.stage === 3) hostTerms.defragmentHostCopy = Math.round(2 * perNodeParams);
  } else if (s.engine === 'fsdp2') {
    hostTerms.offloadedStates = Math.round(MEMORY_CONSTANTS.fsdpHostBytesPerParam * perNodeParams);
  } else if (s.engine === 'deepspeed' && s.stage === 3 && s.offloadOptimizer === 'cpu' && s.offloadParam === 'none') {
    // ZeRO-3 CPU optimizer offload, measured at three ratios on the H200 (tuned sweep): 16 B per
    // parameter of the CPU share (fp32 master, Adam m, v, fp32 gradient, pinned) + 3.5 B per parameter
    // whatever the ratio (bf16 parameters kept on the host, staging); SuperOffload's worker adds its
    // shared-memory copies (5.6 B per CPU-share parameter). The estimator's 16P·1.5 is the ratio-1 case.
    hostTerms.cpuOptimizerStates = Math.round(MEMORY_CONSTANTS.zero3HostBytesPerCpuParam * r * perNodeParams);
    hostTerms.hostParamsAndStaging = Math.round(MEMORY_CONSTANTS.zero3HostBytesPerParam * perNodeParams);
    if (s.superOffload) hostTerms.superOffloadShared = Math.round(MEMORY_CONSTANTS.superOffloadHostBytesPerCpuParam * r * perNodeParams);
  } else {
    // The estimator's factor 1.5 already covers pinned staging buffers: nothing is added on top.
    hostTerms.modelStates = states.hostBytes;
  }
  hostTerms.processes = w.gpus * MEMORY_CONSTANTS.hostProcessBytes;
  if (s.superOffload) hostTerms.adamWorkers = w.gpus * MEMORY_CONSTANTS.hostAdamWorkerBytes;

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
