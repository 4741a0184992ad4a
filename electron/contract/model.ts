// Model architectures: what the tuner plans with (plan.ts) and the runner builds (run-spec.ts).
import { z } from 'zod';

export const ModelFamilySchema = z.enum(['llama', 'qwen2', 'mistral', 'gpt2']);

/** A dense decoder-only transformer, as far as the memory/throughput model and the runner need it. */
export const ModelArchSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  family: ModelFamilySchema,
  hiddenSize: z.number().int().positive(),
  numLayers: z.number().int().positive(),
  numHeads: z.number().int().positive(),
  numKvHeads: z.number().int().positive(),
  intermediateSize: z.number().int().positive(),
  vocabSize: z.number().int().positive(),
  tieEmbeddings: z.boolean(),
  /** 0 for families without rotary embeddings (gpt2 uses learned positions). */
  ropeTheta: z.number().nonnegative(),
  /** RMSNorm eps (llama/qwen2/mistral) or LayerNorm eps (gpt2). */
  rmsNormEps: z.number().positive(),
  headDim: z.number().int().positive(),
  maxPositionEmbeddings: z.number().int().positive(),
  /** q/k/v projections carry a bias (qwen2); gpt2 has biases on every linear (implied by family). */
  attentionBias: z.boolean(),
  /** The published parameter count, where one is published; null for imports. */
  publishedParams: z.number().int().positive().nullable(),
  /** Where the architecture values and published count come from. */
  source: z.string().nullable(),
});
export type ModelArch = z.infer<typeof ModelArchSchema>;

