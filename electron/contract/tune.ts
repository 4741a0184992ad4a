// The closed loop (`tune`) as channels, so the app and `serve` drive the same loop as the CLI:
// tune/start answers at once with an id; every line of progress, and the result at the end, comes
// as a tune/progress event; tune/cancel stops the running trial and keeps the finished ones.
import { z } from 'zod';
import { CLUSTER_NAME_PATTERN } from './cluster';
import { WorkloadOverridesSchema } from './plan';

export const TuneTrialSchema = z.object({
  key: z.string(),
  strategyId: z.string(),
  runId: z.string(),
  status: z.string(),
  tokensPerSecond: z.number().nullable(),
  tflopsPerGpu: z.number().nullable(),
  stepSeconds: z.number().nullable(),
  errorClass: z.string().nullable().optional(),
  seconds: z.number(),
  /** The seed defaults' configuration (the baseline), not a search candidate. */
  baseline: z.boolean().optional(),
});

export const TuneResultSchema = z.object({
  stopReason: z.string(),
  trials: z.array(TuneTrialSchema),
  winner: TuneTrialSchema.nullable(),
  seedDefaults: TuneTrialSchema.nullable(),
  /** Why the seed defaults were not measured, in words (they do not fit the machine, the budget ran out, --no-baseline); absent when they were. */
  seedDefaultsNote: z.string().optional(),
  /** Winner over the seed defaults in tokens/s, minus 1. */
  gain: z.number().nullable(),
  elapsedSeconds: z.number(),
});

export const TuneStartRequestSchema = z
  .object({
    workload: WorkloadOverridesSchema,
    budgetMinutes: z
      .number()
      .positive()
      .max(24 * 60)
      .default(30),
    maxTrials: z.number().int().positive().max(50).default(6),
    steps: z.number().int().positive().max(1000).default(4),
    warmup: z.number().int().nonnegative().max(100).default(2),
    /** Trials closer than this share are not told apart. */
    noise: z.number().positive().max(1).default(0.05),
    strategies: z.array(z.string().min(1)).min(1).max(64).optional(),
    /** Also measure the winner's seed defaults. */
    baseline: z.boolean().default(true),
    python: z.string().min(1).optional(),
    /** Run the trials as jobs of this saved Slurm target (slurm/save), one at a time, refitting between them. */
    slurm: z.string().regex(CLUSTER_NAME_PATTERN, 'must be the name of a saved Slurm target (slurm/list)').optional(),
  })
  .strict();

export const TuneProgressSchema = z.object({
  tuneId: z.string(),
  /** One line for people (a trial starting, its measured figure, why the loop stops). */
  line: z.string(),
  done: z.boolean(),
  result: TuneResultSchema.nullable(),
  error: z.object({ message: z.string(), field: z.string().nullable() }).nullable(),
});

export type TuneResultInfo = z.infer<typeof TuneResultSchema>;
export type TuneProgress = z.infer<typeof TuneProgressSchema>;

export const tuneRequests = {
  'tune/start': { request: TuneStartRequestSchema, response: z.object({ tuneId: z.string() }) },
  'tune/cancel': { request: z.object({ tuneId: z.string() }).strict(), response: z.object({ cancelled: z.boolean() }) },
} as const;

export const tuneEvents = {
  'tune/progress': TuneProgressSchema,
} as const;
