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
  /** CUDA context, cuBLAS/cuDNN workspaces, NCCL channels: per GPU. */
  gpuFrameworkBytes: 1.5 * GiB,
  /** Caching-allocator fragmentation, as a share of model states + activations. */
  gpuFragmentation: 0.05,
  /**
   * What the caching allocator keeps reserved beyond the peak allocated, as a share of the transient
   * activations and logits (freed and re-split every step): 0.35 — the H200 sample's reserved − peak
   * allocated was 5.4–10.4 GiB at micro 4 (12 GiB of activations + logits). Reserved is what OOMs.
   */
  gpuTransientSlack: 0.35,
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
  /** Bytes kept per logit element: bf16 logits + fp32 upcast for the loss + fp32 gradient. */
  logitBytes: 10,
  /** Headroom kept free when deciding "fits" (GPU: against reserved; the H200 sweep's ZeRO-2 at micro 16 reserved 131 of 140 GiB and ran). */
  gpuHeadroom: 0.02,
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
  layers: number;
  logits: number;
}

export function activationBytes(m: ModelArch, w: Pick<Workload, 'seqLen' | 'microBatch' | 'activationCheckpointing'>): ActivationBytes {
  const tokens = w.seqLen * w.microBatch;
  const perLayer = layerActivationBytesPerToken(m) * tokens;
  // checkpointing keeps each block's bf16 input and recomputes one block at a time in backward
  const layers = w.activationCheckpointing ? m.numLayers * 2 * m.hiddenSize * tokens + perLayer : m.numLayers * perLayer;
  const embeddings = 2 * m.hiddenSize * tokens;
  const logits = MEMORY_CONSTANTS.logitBytes * m.vocabSize * tokens;
  return { total: layers + embeddings + logits, layers: layers + embeddings, logits };
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

  const gpuTerms: Record<string, number> = { modelStates: states.gpuBytes, activations: act.layers, logits: act.logits };
  if (s.engine === 'deepspeed' && s.stage === 1) gpuTerms.stage1FullGradients = Math.round(2 * P * (1 - 1 / G));
  // ratio < 1 (ZeRO-3 CPU offload, SuperOffload): fp32 master, Adam m, v and the fp32 gradient of the GPU share stay on the GPU
  if (s.engine === 'deepspeed' && s.stage === 3 && s.offloadOptimizer === 'cpu' && r < 1) gpuTerms.gpuOptimizerShare = Math.round(((1 - r) * 16 * P) / G);
  // bf16 reduce bucket + fp32 reduction copy; stage 1/2 also an all-gather bucket of the same size;
  // stage 3 a prefetch bucket (5e7 elements, bf16) for the parameter all-gathers; overlap_comm a second reduce bucket.
  gpuTerms.commBuffers =
    s.engine === 'fsdp2' ? 2 * (2 * p.perLayer) : (s.stage === 3 ? 6 * bucket + 2 * 5e7 : 8 * bucket) + (knobs.overlapComm ? 2 * bucket : 0);
  if (s.engine === 'fsdp2' && knobs.reshardAfterForward === false) gpuTerms.unshardedParams = Math.round(2 * P * (1 - 1 / G));
  gpuTerms.framework = Math.round(MEMORY_CONSTANTS.gpuFrameworkBytes + MEMORY_CONSTANTS.gpuFragmentation * (states.gpuBytes + act.total));
  gpuTerms.allocatorSlack = Math.round(MEMORY_CONSTANTS.gpuTransientSlack * act.total);

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
    hostBytes: Math.round(sum(hostTerms)),
    nvmeBytes: Math.round(sum(nvmeTerms)),
    modelStates: states,
    gpuTerms,
    hostTerms,
    nvmeTerms,
  };
}
