// The RunSpec: the exact description of one benchmark run, from the tuner (one per strategy of a
// plan) through runs/start and the Python runner (bench.py --spec) to history. One schema: the
// runner validates against its JSON Schema export (resources/engine/run-spec.schema.json, made by
// `npx tsx scripts/gen-run-spec-schema.ts`; tests/unit/engine/run-spec-schema.test.ts fails when it is stale). Nothing re-derives a run
// from a form: what the plan shows is what runs.
import { z } from 'zod';
import { ModelArchSchema } from './model';
import { DEFAULT_SEED, PrecisionSchema, specOptionShape } from './workload-options';

export const RUN_SPEC_VERSION = 1;

export const EngineKindSchema = z.enum(['deepspeed', 'fsdp2']);
export { PrecisionSchema };

/** The resolved architecture the runner builds: the tuner's ModelArch, with the descriptive fields
 *  optional (a hand-written spec need not carry them). `family` is any name here: the runner refuses
 *  a family it cannot build with class `unsupported` (resources/engine/model-families.json), and
 *  rmsNormEps is the runner's to judge (a negative one is how its tests force a NaN loss). */
export const SpecModelSchema = ModelArchSchema.partial({
  label: true,
  source: true,
  publishedParams: true,
  maxPositionEmbeddings: true,
  attentionBias: true,
})
  .extend({
    family: z.string().min(1),
    rmsNormEps: z.number(),
    /** Mistral's sliding_window (keys older than it are masked); null or absent: none. */
    slidingWindow: z.number().int().positive().nullable().optional(),
    /** The config.json the runner builds with transformers (an imported file); absent: the runner
     *  writes the family's config.json from the numbers above (docs/models.md). The numbers above are
     *  then the probe's reading of it (the runner refuses a spec whose numbers differ). */
    hfConfig: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict();

/** The workload of one run: the model and the options the workload carries into the spec (flat in
 *  the spec, grouped here; each option's spec check is declared in workload-options.ts). */
export const SpecWorkloadShape = {
  model: SpecModelSchema,
  ...specOptionShape(),
};

/** The settings the config is generated from (absent: the generator's default). The tuner's search
 *  picks the values; `services/tuner` turns them into the ds_config / fsdp block. */
export const KnobsSchema = z
  .object({
    /** SuperOffload: share of the cores given to the CPU Adam worker (0–1). */
    cpuadamCoresPerc: z.number().gt(0).lt(1).optional(),
    /** ZeRO-3 CPU offload: share of optimizer states updated by CPU Adam (0–1). */
    ratio: z.number().min(0).max(1).optional(),
    overlapComm: z.boolean().optional(),
    reduceBucketSize: z.number().int().positive().optional(),
    subGroupSize: z.number().int().positive().optional(),
    pinMemory: z.boolean().optional(),
    /** FSDP2 only. */
    reshardAfterForward: z.boolean().optional(),
  })
  .strict();

/** What the Plan page showed for this spec (null where nothing was predicted). */
export const SpecPredictionSchema = z
  .object({
    stepSeconds: z.number().nonnegative(),
    tflopsPerGpu: z.number().nonnegative(),
    tflopsAggregate: z.number().nonnegative(),
    tokensPerSecond: z.number().nonnegative(),
    /** Per GPU. */
    gpuPeakBytes: z.number().nonnegative(),
    /** Per node. */
    hostPeakBytes: z.number().nonnegative(),
    /** Efficiency factors fitted from this machine's history were applied. */
    calibrated: z.boolean(),
    /** Host measurements (CPU Adam, copy bandwidth) were used rather than catalogued figures. */
    measured: z.boolean(),
    /** The parameter count the prediction (and the TFLOPS formula) used. */
    params: z.number().int().positive(),
    /** The machine the prediction was made for (plan/compute stamps it; absent in older specs):
     *  its machineId (null for a catalogued one), where its description came from, and its label.
     *  A prediction for another machine says nothing about the host a run starts on: runs/start
     *  refuses a spec planned for a loaded or catalogued machine, and runs one planned on another
     *  detected host without that prediction (the runner's pre-flight then sizes it itself). */
    machineId: z.string().nullable().optional(),
    machineSource: z.enum(['detected', 'file', 'catalogued']).optional(),
    machineLabel: z.string().optional(),
  })
  .strict();

/** A user's own ds_config.json as it came in (issue: your config in): the text byte for byte, and what
 *  the app made of it. `dsConfig` is that text parsed with its "auto" values resolved — what runs. */
export const SpecUserConfigSchema = z
  .object({
    fileName: z.string().min(1),
    text: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** The catalogue strategy it maps to (null: the tuner cannot model it; it runs all the same). */
    mappedStrategy: z.string().nullable(),
    /** Each "auto" filled in: key, value, and from what. */
    resolved: z.array(z.object({ key: z.string(), value: z.unknown(), from: z.string() })),
  })
  .strict();

export const FsdpSettingsSchema = z.object({ cpuOffload: z.boolean(), reshardAfterForward: z.boolean() }).strict();

/** What a spec run by hand gets when it names no execution settings (bench.py --spec FILE). */
export const SPEC_EXECUTION_DEFAULTS = {
  runId: 'run',
  steps: 13,
  warmup: 3,
  seed: DEFAULT_SEED,
  maxSeconds: 3600,
  preflight: 'strict',
} as const;

/** Fields stored specs once carried that no longer mean anything. A spec in history or a reproduction
 *  bundle from before they went must still load and run, so they are accepted and dropped (the strict
 *  object below would otherwise refuse the whole spec). `modelImpl` chose the runner's former compact
 *  modules (`legacy`), measured equal to transformers' classes and deleted (docs/models.md). Keep in step
 *  with RETIRED_KEYS in resources/engine/spec.py (a spec run by hand with bench.py). */
export const RETIRED_SPEC_KEYS = ['modelImpl'] as const;

function withoutRetiredKeys(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  if (!RETIRED_SPEC_KEYS.some((k) => k in raw)) return raw;
  const copy: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const k of RETIRED_SPEC_KEYS) delete copy[k];
  return copy;
}

const RunSpecObjectSchema = z
  .object({
    specVersion: z.literal(RUN_SPEC_VERSION),
    /** Strategy id of the catalog (resources/presets/strategies.json), or 'custom'. */
    strategy: z.string().min(1),
    engine: EngineKindSchema,
    ...SpecWorkloadShape,
    knobs: KnobsSchema,
    /** The exact ds_config.json (engine deepspeed), else null. */
    dsConfig: z.record(z.string(), z.unknown()).nullable(),
    /** The FSDP2 settings (engine fsdp2), else null. */
    fsdp: FsdpSettingsSchema.nullable(),
    prediction: SpecPredictionSchema.nullable(),
    /** Where the dsConfig came from a user's file (plan/user-config), that file; absent for generated configs. */
    userConfig: SpecUserConfigSchema.optional(),
    /** Stable hash of what determines speed: engine, config, model, batch shape (services/tuner configHash). */
    configHash: z.string().min(1),
    // ---- execution: set by runs/start; defaults for a spec run by hand (bench.py --spec FILE). The seed
    // is a workload option (workload-options.ts), among the workload's fields above.
    runId: z.string().min(1).default(SPEC_EXECUTION_DEFAULTS.runId),
    /** Steps the runner takes, warm-up included. */
    steps: z.number().int().positive().default(SPEC_EXECUTION_DEFAULTS.steps),
    warmup: z.number().int().nonnegative().default(SPEC_EXECUTION_DEFAULTS.warmup),
    maxSeconds: z.number().positive().default(SPEC_EXECUTION_DEFAULTS.maxSeconds),
    /** 'warn' reports a failed pre-flight check and goes on (hosts whose MemAvailable under-reads). */
    preflight: z.enum(['strict', 'warn']).default(SPEC_EXECUTION_DEFAULTS.preflight),
    /** Set by runs/start on the host the run starts on: the memory it needs there, sized there (the
     *  tuner's estimate for that machine and this spec's workload and knobs; without a GPU the GPU side
     *  lands in host memory too), not the prediction's figure for the machine it was planned for.
     *  The runner's pre-flight checks host memory against it. Absent (a spec run by
     *  hand): the prediction's hostPeakBytes, else the runner's own estimate. */
    preflightMemory: z
      .object({
        /** Per node. */
        hostBytes: z.number().nonnegative(),
        /** Per GPU; null without a GPU (the CPU accelerator). */
        gpuBytes: z.number().nonnegative().nullable(),
        /** What the figure is, in words the pre-flight line quotes. */
        basis: z.string().min(1),
      })
      .strict()
      .optional(),
  })
  .strict();

/** The spec as parsed anywhere (plan, runs/start, history, imports): retired keys dropped first. The JSON
 *  Schema export renders the object itself (zod's input side of a preprocess is its target). */
export const RunSpecSchema = z.preprocess<
  unknown,
  typeof RunSpecObjectSchema,
  z.input<typeof RunSpecObjectSchema> & { [K in (typeof RETIRED_SPEC_KEYS)[number]]?: unknown }
>(withoutRetiredKeys, RunSpecObjectSchema);

export type Precision = z.infer<typeof PrecisionSchema>;
export type SpecModel = z.infer<typeof SpecModelSchema>;
export type Knobs = z.infer<typeof KnobsSchema>;
export type SpecPrediction = z.infer<typeof SpecPredictionSchema>;
export type SpecUserConfig = z.infer<typeof SpecUserConfigSchema>;
export type RunSpec = z.infer<typeof RunSpecSchema>;

/** The JSON Schema the Python runner validates against (input side: defaulted fields are optional). */
export function runSpecJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RunSpecSchema, { io: 'input', reused: 'inline', target: 'draft-2020-12' }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return {
    $schema,
    $comment:
      'Generated from electron/contract/run-spec.ts (RunSpecSchema) by `npx tsx scripts/gen-run-spec-schema.ts`; do not edit. tests/unit/engine/run-spec-schema.test.ts fails when it is stale.',
    title: 'Offload Studio RunSpec',
    ...rest,
  };
}

/** The committed file's text (resources/engine/run-spec.schema.json). */
export function runSpecJsonSchemaText(): string {
  return JSON.stringify(runSpecJsonSchema(), null, 2) + '\n';
}
