// A user's own ds_config.json: what the app read from it ("auto" values resolved, keys checked the way
// DeepSpeed 0.19 checks them), which strategy and knobs it amounts to, the prediction for it on the
// plan's machine, and the tuned alternative as a diff of keys. The spec that runs it carries the text
// byte for byte (RunSpec.userConfig), so history keeps exactly what the user gave.
import { z } from 'zod';
import { MachineSchema } from './hardware';
import { KnobsSchema, RunSpecSchema } from './run-spec';
import { ConfigValidationSchema, PlanResultSchema, PredictionSchema, StrategyPlanSchema, WorkloadOverridesSchema } from './plan';

/** Where a user's config goes in: the file's text as it is (never re-serialised) and its name. */
export const UserConfigSourceSchema = z
  .object({
    /** The file's name as the user picked it (display only; no path is read from it). */
    fileName: z.string().min(1).max(255),
    /** The file's text; refused with line and column when it is not JSON. 1 MiB is far above any real ds_config. */
    text: z.string().max(1024 * 1024),
  })
  .strict();
export type UserConfigSource = z.infer<typeof UserConfigSourceSchema>;

/** One "auto" the app filled in, and from what (the way HF Trainer / accelerate fill it). */
export const ResolvedAutoSchema = z.object({ key: z.string(), value: z.unknown(), from: z.string() });
export type ResolvedAuto = z.infer<typeof ResolvedAutoSchema>;

/** What the app says of one key: DeepSpeed ignores it, the model cannot represent it (and assumes
 *  what instead), it is deprecated (and what DeepSpeed maps it to), or what it means for the plan. */
export const ConfigKeyNoteSchema = z.object({
  key: z.string(),
  kind: z.enum(['ignored-by-deepspeed', 'not-modelled', 'assumed', 'deprecated', 'mapped']),
  message: z.string(),
});
export type ConfigKeyNote = z.infer<typeof ConfigKeyNoteSchema>;

/** The config as a strategy of the catalogue with knobs, or why it cannot be one. */
export const ConfigMappingSchema = z.object({
  /** The catalogue strategy it runs as, null where the tuner cannot model it (it still runs). */
  strategyId: z.string().nullable(),
  knobs: KnobsSchema,
  microBatch: z.number().int().positive(),
  gradAccum: z.number().int().positive(),
  /** Data-parallel world size the batch keys were resolved against (GPUs × nodes). */
  worldSize: z.number().int().positive(),
  precision: z.enum(['bf16', 'fp16', 'fp32']),
  /** Why the prediction is unavailable (the tuner has no model for this config), else null. */
  unmodelled: z.string().nullable(),
  notes: z.array(ConfigKeyNoteSchema),
});
export type ConfigMapping = z.infer<typeof ConfigMappingSchema>;

/** One key that differs between the user's config and the tuned one. */
export const ConfigDiffEntrySchema = z.object({
  key: z.string(),
  /** undefined: the key is absent on that side. */
  yours: z.unknown().optional(),
  tuned: z.unknown().optional(),
});
export type ConfigDiffEntry = z.infer<typeof ConfigDiffEntrySchema>;

export const UserConfigPlanSchema = z.object({
  fileName: z.string(),
  sha256: z.string(),
  /** The config with every "auto" filled in: what DeepSpeed gets. */
  resolvedConfig: z.record(z.string(), z.unknown()),
  resolved: z.array(ResolvedAutoSchema),
  validation: ConfigValidationSchema,
  mapping: ConfigMappingSchema,
  /** The user's config as a plan row (verdict, memory, prediction) — null where it cannot be modelled. */
  yours: StrategyPlanSchema.nullable(),
  /** The spec that runs the user's config unchanged (runs/start `specs`). */
  spec: RunSpecSchema,
  /** The whole plan of the same workload: the tuned alternative is its recommendation. */
  plan: PlanResultSchema,
  /** The recommendation's config beside the user's, key by key, with the predicted gain. */
  tuned: z
    .object({
      strategyId: z.string(),
      microBatch: z.number().int().positive(),
      gradAccum: z.number().int().positive(),
      diff: z.array(ConfigDiffEntrySchema),
      /** Predicted tokens/s of the tuned config over the user's (null where either has no prediction). */
      predictedGain: z.number().positive().nullable(),
      predicted: PredictionSchema,
      spec: RunSpecSchema,
    })
    .nullable(),
  /** Best measured tokens/s of each side on this machine (history), where both were run: the measured gain. */
  measured: z
    .object({
      yoursTokensPerSecond: z.number().positive().nullable(),
      tunedTokensPerSecond: z.number().positive().nullable(),
      gain: z.number().positive().nullable(),
      runs: z.number().int().nonnegative(),
    })
    .nullable()
    .default(null),
});
export type UserConfigPlan = z.infer<typeof UserConfigPlanSchema>;

/** How a configuration leaves the app for the user's own training. */
export const LaunchExportSchema = z.object({
  /** ds_config.json as HF Trainer `--deepspeed` / deepspeed.initialize take it. */
  dsConfigJson: z.string(),
  /** An accelerate config file (YAML) that points at that ds_config.json. */
  accelerateYaml: z.string(),
  /** One launch line per launcher, for this machine's GPUs and the workload's nodes; argv form too. */
  launch: z.array(z.object({ launcher: z.enum(['deepspeed', 'torchrun', 'accelerate']), line: z.string(), argv: z.array(z.string()) })),
  notes: z.array(z.string()),
});
export type LaunchExport = z.infer<typeof LaunchExportSchema>;

export const userConfigRequests = {
  'plan/user-config': {
    request: z
      .object({
        config: UserConfigSourceSchema,
        /** Model, sequence, GPUs…; micro batch / accumulation only where they fill an "auto" (an explicit config value wins, a contradiction is refused). */
        workload: WorkloadOverridesSchema,
        machine: MachineSchema.optional(),
      })
      .strict(),
    response: UserConfigPlanSchema,
  },
  'plan/launch-export': {
    request: z
      .object({
        spec: RunSpecSchema,
        /** The user's training script the launch lines start (default train.py). */
        script: z.string().min(1).max(500).optional(),
      })
      .strict(),
    response: LaunchExportSchema,
  },
} as const;

export const userConfigEvents = {} as const;
