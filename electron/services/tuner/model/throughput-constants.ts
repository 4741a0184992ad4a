// The step-time model's constants, each with its source (docs/tuner-model.md), and the knobs it reads.
// A module of their own so the mechanisms (mechanisms/) and throughput.ts, which asks them, import them
// without a cycle.

export const THROUGHPUT_CONSTANTS = {
  /**
   * Share of the matmul ceiling the model's projections (and LM head) run at, counted on the FLOPs they
   * really execute (`executedFlops`). 0.9: the H200 probe (2026-12-04, bench/device/step-phases-probe.py,
   * resources/samples/h200-step-phases-probe/): one MLP up-projection at each sample workload's shape ran
   * at 661 / 755 / 768 TFLOPS (Llama-3.1-8B micro 1 × 4096, 3.2-3B 8 × 2048, 3.2-1B 2 × 16384) against
   * the catalogued 796; calibration refits the compute term per machine.
   */
  matmulEfficiency: 0.9,
  /**
   * Share of the matmul ceiling causal attention (torch SDPA → cuDNN flash kernels, bf16) runs at,
   * counted on its causal FLOPs (forward 2·s·q per token per layer, backward 2.5× forward). 0.5: the
   * same probe — SDPA forward + backward at the three workloads' shapes ran at 306 / 374 / 445 TFLOPS.
   */
  attentionEfficiency: 0.5,
  /** Tokens per micro batch at which matmul efficiency is half its best (small micro batches under-fill the GPU). Assumption. */
  tokensHalf: 256,
  /** Bus-bandwidth share of a link in ring collectives (NCCL bus bandwidth ≈ 80% of link). Assumption. */
  collectiveEfficiency: 0.8,
  /** Share of the measured pinned copy rate a copy stream reaches inside a step. Assumption. */
  transferEfficiency: 0.9,
  /**
   * DeepSpeed ZeRO-3 cost per parameter per pass (forward, recompute, backward) of the pre/post hooks'
   * gather, release and partition bookkeeping, seconds. On one GPU the gather moves nothing
   * (partition_parameters.py `_no_gather_coalesced`), yet the H200 probe's ZeRO-3 passes ran 0.02–0.26 s
   * longer than the same model's plain-torch passes, growing with the layers' size (1.75 ms per layer pass
   * for Llama-3.2-1B's 61 M-parameter layers, 4.8 ms for Llama-3.1-8B's 218 M): the cost follows the
   * parameters, not the layer count. 11.8 ps: the H200 tuned sweep (2026-12-03) — ZeRO-3 offload at micro 8,
   * effective ratio 0.11 / 0.56 / 1, 1.43 / 2.46 / 3.76 s: the ratio → 0 intercept is 0.1 s above compute
   * over 3 passes of Llama-3.2-3B's 2.82 B block parameters. Calibration fits its factor per strategy.
   */
  zero3ParamPassSeconds: 11.8e-12,
  /** Per sub-group cost of a ZeRO-3 CPU-offload step (one CPU Adam call, its copies and launches), seconds. Assumption. */
  subGroupSeconds: 0.01,
  /** FSDP2's per-layer hooks (C++ all-gather/reshard, no Python bookkeeping per parameter) as a share of ZeRO-3's. Assumption. */
  fsdpLayerFactor: 1 / 3,
  /**
   * Pageable host→GPU rate as a share of pinned where nothing was measured: PCIe 0.11 (H200 host:
   * 6.25 GB/s pageable vs 55.1 pinned, native-measure.json); NVLink-C2C 0.5 (coherent memory: a
   * superchip reads pageable memory over C2C; assumption, GH200 not measured here).
   */
  pageableShare: { pcie: 0.11, c2c: 0.5 },
  /** torch AdamW on CPU without fused/foreach (the per-tensor loop) vs the fused kernel: H200 ceilings plain_t16 0.543 / fused_t16 3.799. */
  torchPlainAdamFactor: 0.143,
  /** torch fused CPU AdamW vs DeepSpeedCPUAdam: about the same rate (docs/engine-facts.md: 4.5–4.8 vs 3.8–4.1 G params/s at 16 threads). */
  torchFusedAdamFactor: 0.93,
  /** Cores the training process keeps per rank (kernel launches, Python) under SuperOffload. */
  minTrainingCoresPerRank: 2,
  /** GPU memory bandwidth for memory-bound kernels (element-wise ops, the optimizer step): 4.8 TB/s H200 datasheet × 0.7. Assumption where uncatalogued. */
  gpuMemoryBytesPerSecond: 3.3e12,
  /**
   * Bytes of GPU memory traffic per parameter of one DeepSpeed optimizer step on the GPU (no offload, or
   * the 1 − ratio share), from stage3.py / stage_1_and_2.py step(): the gradient norm in double precision
   * (`g.double().norm(2)`: bf16 read 2, fp64 write 8 and read 8), the flatten of the bf16 gradient
   * partition (2 + 2) and its cast to fp32 (2 + 4), unscale_and_clip_grads' `mul_` (4 + 4), FusedAdam
   * (fp32 p, g, m, v read 16, p, m, v written 12) and the fp32 → bf16 copy into the parameters (4 + 2): 70.
   */
  gpuStepBytesPerParam: 70,
  /**
   * Bytes of GPU memory traffic per parameter per micro step of DeepSpeed's gradient path without offload:
   * each bf16 gradient copied into the reduce bucket (`__add_grad_to_ipg_bucket` / stage 1-2's contiguous
   * buffer, 2 + 2), flattened for the (one-rank) reduce (2 + 2) and copied into its partition buffer
   * (`partition_grads` / `copy_grads_in_partition`, 2 + 2): 12.
   */
  gpuGradientCopyBytesPerParam: 12,
  /**
   * Bytes of element-wise GPU traffic per token per layer of one forward pass of the runner's Llama
   * block (counted from the runner's own Llama implementation; transformers' Llama, which it runs now, measured the
   * same step time within 2 %, docs/models.md): two RMSNorms in fp32 (36·h each), two residual adds (6·h each),
   * rotary embeddings on q and k (≈ 20 B per element), the attention output's transpose copy (4·q), SiLU
   * and the gate product (10·I): 84h + 24q + 20kv + 10I. Recompute and backward: × (c − 1) more, c the
   * FLOP multiplier (4 with checkpointing, else 3).
   */
  elementwiseBytes: { h: 84, q: 24, kv: 20, I: 10 },
  /** Bytes per logit per token of the loss (a causal LM's loss: slice copy, fp32 upcast, log-softmax and their backward). */
  lossBytesPerLogit: 42,
} as const;

/** The settings the config is generated from, as far as the throughput model reads them (contract Knobs). */
export interface ThroughputKnobs {
  cpuadamCoresPerc?: number;
  ratio?: number;
  overlapComm?: boolean;
  reduceBucketSize?: number;
  subGroupSize?: number;
  pinMemory?: boolean;
  reshardAfterForward?: boolean;
  /** FSDP2 CPU offload: which torch AdamW steps the shards — the fused kernel, the multi-tensor path, or the per-tensor loop. */
  torchAdamImpl?: TorchAdamImpl;
}

export type TorchAdamImpl = 'fused' | 'foreach' | 'plain';

/** What the FSDP2 runner steps by default: fused where torch has it on the CPU, else foreach (resources/engine/fsdp_engine.py make_adamw). */
export const FSDP_CPU_ADAM_IMPL_DEFAULT: TorchAdamImpl = 'fused';
