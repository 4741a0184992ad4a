// The memory model's constants, each with its source (docs/tuner-model.md). A module of their own so
// the mechanisms (mechanisms/) and memory.ts, which asks them, import them without a cycle.
const GiB = 2 ** 30;

export const MEMORY_CONSTANTS = {
  /** CUDA context, cuBLAS/cuDNN workspaces, NCCL channels: per GPU, outside the caching allocator's count. */
  gpuFrameworkBytes: 1.5 * GiB,
  /**
   * The caching allocator needs one free block as large as the largest transient tensor beyond the
   * allocated peak: blocks freed by earlier, smaller tensors cannot be merged into it. The largest
   * transient is the fp32 logits of a micro batch (4 B per element). The memory probes on one H200:
   * Llama-3.2-1B at seq 16384 ran out with 113.7 GiB allocated while asking for its 31 GiB logits
   * block; Llama-3.1-8B at seq 4096, micro 2, ran at 134.5 GiB allocated of 140.4 (its block: 3.9 GiB).
   * A share of the transient bytes instead (5% fragmentation + 35%) calls both 8B runs "does not fit".
   */
  allocatorBlockBytesPerLogit: 4,
  /**
   * The share of that free block the allocator may do without, so a verdict can only call "at the edge",
   * not "does not fit", what it would need to hold. Under pressure PyTorch's caching allocator frees its
   * cached blocks and retries (DeepSpeed's "allocator cache flushes" warning; the runner's gpuAllocRetries), so
   * the slack reserved beyond the allocated peak shrinks below the block — how far depends on
   * fragmentation the model cannot see. Two completed ZeRO-3 runs: Llama-3.1-8B seq 4096 micro 2 on an
   * H200 kept 1.96 GiB of its 3.9 GiB block (0.50), Llama-3.2-3B seq 2048 micro 7 on an H100 4.09 of
   * 6.85 GiB (0.60) — called "does not fit" before this term. It cannot be dropped whole: ZeRO-1 micro 9 of
   * the same 3B workload on the H100 ran out where allocated + context alone would fit. 0.5 is read off those
   * runs (resources/samples/h200-boundary.runs.json, h100-boundary.runs.json): a validation figure.
   */
  allocatorBlockSoftShare: 0.5,
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
  /**
   * SuperOffload on top of ZeRO-3 offload's host, per CPU-share parameter: its CPU Adam runs in a spawned worker
   * (superoffload_utils.py) that gets each sub-group's fp32 partition through a multiprocessing queue, which moves
   * the storage into shared memory; the worker's Adam reads and writes all of it, so both processes' RSS — the
   * runner's host figure is self + children RSS (resources/engine/memory.py) — hold those 4 B. The Adam m and v
   * (8 B) live in the worker instead of the trainer, a move, not an addition. The H200 runs' excess over ZeRO-3
   * offload at the same CPU share: 2.7–4.8 B per CPU-share parameter. The worker also pins a gradient scratch of
   * one sub-group (4 B × sub_group_size); the runs do not resolve it (with it, the ratio-1 runs at 1e9 sub-groups
   * would move from 3–4% under to 1% over, the 1B and 8B runs at 4e8 from 9% to 22% and 10% over): not counted.
   */
  superOffloadHostBytesPerCpuParam: 4,
  /**
   * SuperOffload's CPU Adam worker process, per rank: a spawned interpreter with torch and DeepSpeed imported.
   * 0.5 GiB, chosen with the H200 runs in view (the excess above has no visible constant; 2 GiB puts
   * every SuperOffload run 4–27% over).
   */
  hostAdamWorkerBytes: 0.5 * GiB,
  /**
   * Bytes per logit element at the loss (counted from the runner's own Llama implementation; transformers' Llama, run now,
   * measured the same peak to 0.01 GiB, docs/models.md): the bf16 logits (2), the bf16 copy
   * the shifted slice makes (2), the fp32 upcast cross_entropy reads (4) and the fp32 log-softmax it saves
   * for backward (4); in its backward the fp32 gradient and its bf16 cast take the place of the copies.
   * The H200 memory probes moved 12.0 (Llama-3.2-1B, seq 16384) and 12.3 B (Llama-3.1-8B, seq 4096) per
   * element per added sample — layer inputs included. Counting 10 would leave out the slice's copy.
   */
  logitBytes: 12,
  /** Headroom kept free when deciding "fits" on the host and NVMe (the GPU's margin is the memory error band: fit.ts). */
  hostHeadroom: 0.05,
  nvmeHeadroom: 0.1,
} as const;
