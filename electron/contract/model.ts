// Model architectures: what the tuner plans with (plan.ts) and the runner builds (run-spec.ts).
import { z } from 'zod';

export const ModelFamilySchema = z.enum(['llama', 'qwen2', 'mistral', 'gpt2']);

/** The parameter table of an imported config.json's model, counted by transformers on the meta device
 *  (resources/engine/model_probe.py through services/environment/model-probe.ts), which the tuner uses
 *  instead of its formula (params.ts, kept for the presets' families). */
export const ProbedParamsSchema = z
  .object({
    total: z.number().int().positive(),
    perLayer: z.number().int().nonnegative(),
    embedding: z.number().int().nonnegative(),
    /** The most parameters one module holds directly (DeepSpeed's ZeRO-3 estimator's ℓ). */
    largestLayer: z.number().int().positive(),
    /** The transformers version that counted. */
    transformers: z.string(),
    /** A Mixture-of-Experts model: the parameters one token computes (every router, shared experts,
     *  dense layers and top-k of the routed experts), which the time model counts; memory holds
     *  `total`. Absent: a dense model (active = total). */
    active: z.number().int().positive().optional(),
    /** A Mixture-of-Experts model's routed experts per MoE layer and how many a token is routed to. */
    experts: z.object({ count: z.number().int().positive(), perToken: z.number().int().positive() }).strict().optional(),
  })
  .strict();

/** A dense decoder-only transformer, as far as the memory/throughput model and the runner need it. */
export const ModelArchSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  /** A preset's family (ModelFamilySchema: the tuner's formula counts it), or an imported config's
   *  model_type (any decoder the pinned transformers knows; counted by the probe, `probed`). */
  family: z.string().min(1),
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
  /** An imported model's config.json, as the user gave it: the runner builds exactly this model. */
  hfConfig: z.record(z.string(), z.unknown()).nullable().optional(),
  /** That config.json's text as read from the file, which the runner and the probe parse: a JSON
   *  object in JavaScript cannot keep `30.0` apart from `30`, and transformers refuses an int where
   *  its config declares a float (Gemma-2's final_logit_softcapping, Mixtral's router_jitter_noise). */
  hfConfigText: z.string().nullable().optional(),
  /** An imported model's count from the model itself (absent for presets: the formula counts them). */
  probed: ProbedParamsSchema.optional(),
});
export type ModelArch = z.infer<typeof ModelArchSchema>;

/** A preset of the catalogue (resources/presets/models.json): one of the formula's families, so the
 *  tuner counts it without an engine environment (params.ts; held to transformers' count by
 *  tests/unit/tuner/params-probe.test.ts). Any other architecture comes in as an imported config.json. */
export const PresetModelSchema = ModelArchSchema.extend({ family: ModelFamilySchema });
