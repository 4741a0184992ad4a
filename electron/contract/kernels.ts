// The workload's own kernels measured on the user's GPU (resources/engine/kernel_probe.py, spawned and
// cached by services/environment/kernel-probe.ts): one decoder layer's forward + backward and the
// embedding + LM head + fp32 loss, timed at each candidate micro batch, with the GPU memory they
// allocate, and the architecture as the built model has it. The tuner (services/tuner/kernels.ts) uses
// these figures instead of the catalogue's matmul/attention efficiencies and the activation formula for
// that workload; a plan without them says why, and rests on the catalogue's constants.
import { z } from 'zod';

const seconds = z.number().nonnegative();
const bytes = z.number().int().nonnegative();

/** One micro batch's figures. Seconds are medians over the repeats after a warm-up. */
export const KernelMicroSchema = z.object({
  microBatch: z.number().int().positive(),
  tokens: z.number().int().positive(),
  /** One decoder layer's forward + backward (with checkpointing: the recompute too), the mean over the
   *  model's layers where they differ (× layers = all of them). */
  layerSeconds: z.number().positive(),
  layerForwardSeconds: seconds,
  /** Embedding, rotary embeddings and mask, final norm, LM head and the fp32 loss, forward + backward. */
  headSeconds: z.number().positive(),
  /** Allocated by one layer's forward and kept for its backward (checkpointing: its output alone). */
  layerKeptBytes: bytes,
  /** Peak allocated through one layer's forward + backward (the recompute's activations + backward's). */
  layerPeakBytes: bytes,
  /** Peak allocated through the head and the loss (the logits, their fp32 copy, the log-softmax…). */
  headPeakBytes: bytes,
  layerSecondsRange: z.tuple([seconds, seconds]),
  headSecondsRange: z.tuple([seconds, seconds]),
  repeats: z.number().int().positive(),
  /** Layers of different kinds (Gemma-2's sliding and full attention): each kind's own figures. */
  byKind: z
    .array(
      z.object({
        kind: z.string(),
        layers: z.number().int().positive(),
        layerSeconds: z.number().positive(),
        layerPeakBytes: bytes,
        attentionMask: z.string().nullable().optional(),
      }),
    )
    .optional(),
});
export type KernelMicro = z.infer<typeof KernelMicroSchema>;

/** The architecture as the built model has it — not Llama's shape assumed. */
export const KernelArchSchema = z.object({
  modelType: z.string(),
  architecture: z.string(),
  layerClass: z.string().nullable(),
  layers: z.number().int().positive(),
  hiddenSize: z.number().int().positive(),
  numHeads: z.number().int().positive(),
  numKvHeads: z.number().int().positive(),
  headDim: z.number().int().positive(),
  intermediateSize: z.number().int().positive().nullable(),
  vocabSize: z.number().int().positive(),
  tieEmbeddings: z.boolean(),
  slidingWindow: z.number().int().positive().nullable(),
  /** q/k/v in one projection (Phi-3's qkv_proj, GPT-2's c_attn); gate and up in one (Phi-3's gate_up_proj). */
  fusedQkv: z.boolean(),
  fusedGateUp: z.boolean(),
  /** Each 2-D weight of a layer: [in, out]. */
  projections: z.record(z.string(), z.tuple([z.number().int(), z.number().int()])),
  params: z.number().int().positive(),
  embeddingParams: z.number().int().nonnegative().nullable(),
  /** Parameters of each kind of layer (one entry where all layers are alike). */
  perLayerParams: z.array(z.number().int().nonnegative()),
  layerKinds: z.array(z.object({ kind: z.string(), layers: z.number().int().positive() })),
  hiddenAct: z.string().nullable(),
  /** What the model's forward passed its layers as attention mask: none (SDPA's causal flash path) or a tensor. */
  attentionMask: z.string().nullable(),
});

/** kernel_probe.py's answer when it measured at least one micro batch. */
export const KernelProbeSchema = z.object({
  ok: z.literal(true),
  probe: z.literal('kernel'),
  version: z.number().int().positive(),
  device: z.enum(['cuda', 'cpu']),
  gpuName: z.string().nullable(),
  torch: z.string(),
  transformers: z.string(),
  dtype: z.enum(['bf16', 'fp16', 'fp32']),
  seqLen: z.number().int().positive(),
  checkpointing: z.boolean(),
  /** cuda-allocator: torch.cuda.memory_allocated; cpu-dispatch-tracker: the tests' CPU stand-in. */
  memorySource: z.enum(['cuda-allocator', 'cpu-dispatch-tracker']),
  arch: KernelArchSchema,
  /** Ascending by micro batch. */
  micros: z.array(KernelMicroSchema).min(1),
  /** The first micro batch that ran out of memory (the climb stopped there), and in which part. */
  oom: z.object({ microBatch: z.number().int().positive(), part: z.string(), message: z.string() }).nullable(),
  /** Why the climb stopped early (its time budget), else null. */
  stopped: z.string().nullable(),
  seconds: seconds,
});
export type KernelProbe = z.infer<typeof KernelProbeSchema>;

/** kernel_probe.py's answer when it measured nothing: no_gpu (skipped), unsupported / bad_config /
 *  build_failed (transformers cannot build or call it), oom (the smallest micro batch ran out), error. */
export const KernelProbeFailureSchema = z.object({
  ok: z.literal(false),
  class: z.string(),
  message: z.string(),
  skipped: z.boolean().optional(),
});

/**
 * What a plan is given about the workload's kernels: the probe's figures (fresh or from the cache), or
 * why there are none (no GPU, a machine file, a failed or timed-out probe) — the plan then rests on the
 * catalogue's constants and its notes say why. A failed probe never fails the plan.
 */
export const KernelsInputSchema = z.union([
  z.object({ probe: KernelProbeSchema, cachedMicros: z.array(z.number().int().positive()).optional() }),
  z.object({ reason: z.string() }),
]);
export type KernelsInput = z.infer<typeof KernelsInputSchema>;

/** What the plan's step times and activation memory rest on, said in the plan (PlanResult.kernels). */
export const PlanKernelsSchema = z.union([
  z.object({ source: z.literal('probe'), probe: KernelProbeSchema }),
  z.object({ source: z.literal('catalogue'), reason: z.string() }),
]);
export type PlanKernels = z.infer<typeof PlanKernelsSchema>;
