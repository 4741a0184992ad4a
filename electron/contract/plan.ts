// Planning (tuner) shapes and channels: model architectures, strategy presets, workloads, and the
// plan the tuner computes. One pure function (services/tuner `planWorkload`) produces the plan, so
// the CLI (`plan --json`), the `plan/compute` channel and the Plan page show identical numbers.
import { z } from 'zod';
import { MachineSchema } from './hardware';
import { ModelArchSchema } from './model';
import { PlanKernelsSchema } from './kernels';
import { KnobsSchema, RunSpecSchema } from './run-spec';
import { WORKLOAD_DEFAULTS, workloadOptionShape, workloadOverrideShape } from './workload-options';

export { ModelArchSchema, ModelFamilySchema, PresetModelSchema, ProbedParamsSchema, type ModelArch } from './model';

// ---------------------------------------------------------------- model architectures: model.ts

// ---------------------------------------------------------------- strategies (resources/presets/strategies.json)

export const OffloadDeviceSchema = z.enum(['none', 'cpu', 'nvme']);

export const StrategyPresetSchema = z.object({
  id: z.string(),
  label: z.string(),
  /** The name charts, tables and the CLI show (contract/charts/labels.ts). */
  shortLabel: z.string(),
  /** The strategy's colour in every chart of every page and report. */
  color: z.string().regex(/^#[0-9a-f]{6}$/),
  /** Other ids that name this strategy (the seed script's `zerooffload`). */
  aliases: z.array(z.string()).optional(),
  engine: z.enum(['deepspeed', 'fsdp2']),
  /** ZeRO stage; FSDP2 full sharding is modelled as stage 3. */
  stage: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  offloadOptimizer: OffloadDeviceSchema,
  offloadParam: OffloadDeviceSchema,
  superOffload: z.boolean(),
  description: z.string(),
  /** 0..1: share of the CPU optimizer step hidden behind backward (0 = serial after backward). */
  cpuStepOverlap: z.number().min(0).max(1),
  /** 0..1: share of host↔device and NVMe traffic hidden behind compute. */
  transferOverlap: z.number().min(0).max(1),
  /** 0..1: share of GPU↔GPU collectives hidden behind compute. */
  commOverlap: z.number().min(0).max(1),
  requires: z.array(z.enum(['cuda', 'nvme', 'async_io'])),
  notes: z.array(z.string()),
});
export type StrategyPreset = z.infer<typeof StrategyPresetSchema>;

// ---------------------------------------------------------------- GPU catalog (resources/presets/gpus.json)

export const GpuCatalogEntrySchema = z.object({
  id: z.string(),
  label: z.string(),
  /** Lower-case substrings of the nvidia-smi name that identify this GPU. */
  match: z.array(z.string()),
  bf16DenseTflops: z.number().positive(),
  /** Measured matmul ceiling where one exists (what the model uses before a measurement of this host). */
  matmulTflops: z.number().positive(),
  memoryBytes: z.number().positive(),
  hostLink: z.object({ kind: z.enum(['pcie', 'c2c']), bytesPerSecond: z.number().positive(), label: z.string() }),
  peerLink: z.object({ kind: z.enum(['nvlink', 'pcie']), bytesPerSecond: z.number().positive(), label: z.string() }),
  source: z.string(),
});
export type GpuCatalogEntry = z.infer<typeof GpuCatalogEntrySchema>;

// ---------------------------------------------------------------- workloads

// The options (every field but the model) are declared once, in workload-options.ts: its check, its
// default, its CLI flag and help, its Plan form field, whether the RunSpec carries it.

/** The longest sequence the Plan form starts a machine without a GPU at (its CPU path runs the tiny preset). */
export const CPU_DEFAULT_MAX_SEQ = 512;

/**
 * The defaults for one machine, as the Plan form fits them (renderer stores/plan.ts workloadForMachine)
 * and `plan` takes them for a flag left out: its GPU count, and without a GPU a sequence of at most
 * 512. `plan` on a GPU-less VM once planned seq 2048 where the form said 512.
 */
export function workloadDefaultsFor(machine: { gpus: readonly unknown[] } | null | undefined): {
  seqLen: number;
  microBatch: number;
  gpus: number;
} {
  const base = { seqLen: WORKLOAD_DEFAULTS.seqLen, microBatch: WORKLOAD_DEFAULTS.microBatch, gpus: WORKLOAD_DEFAULTS.gpus };
  if (!machine) return base;
  return machine.gpus.length ? { ...base, gpus: machine.gpus.length } : { ...base, seqLen: Math.min(base.seqLen, CPU_DEFAULT_MAX_SEQ) };
}

export const WorkloadSchema = z
  .object({
    /** A preset id (`llama-3.1-8b`), a path to a config.json (CLI), or an inline architecture (imports). */
    model: z.union([z.string().min(1), ModelArchSchema]),
    ...workloadOptionShape(),
  })
  .strict();
export type Workload = z.infer<typeof WorkloadSchema>;
export type WorkloadInput = z.input<typeof WorkloadSchema>;

/** Fields that override a scenario's workload: no defaults here, so an absent field keeps the scenario's value. */
export const WorkloadOverridesSchema = z
  .object({
    model: z.union([z.string().min(1), ModelArchSchema]),
    ...workloadOverrideShape(),
  })
  .partial()
  .strict();
export type WorkloadOverrides = z.infer<typeof WorkloadOverridesSchema>;

// ---------------------------------------------------------------- scenarios (resources/presets/scenarios.json)

export const ScenarioSchema = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  workload: WorkloadSchema,
  /** Strategies the scenario compares (the plan still lists every strategy). */
  compare: z.array(z.string()),
  /** A synthetic machine; `catalogued` says it was not detected. */
  machine: z.object({ catalogued: z.literal(true), description: z.string(), value: MachineSchema }).nullable(),
  source: z.string(),
});
export type Scenario = z.infer<typeof ScenarioSchema>;

// ---------------------------------------------------------------- the plan

const bytes = z.number().nonnegative();

export const MemoryEstimateSchema = z.object({
  /** Per GPU: what an OOM is decided against — the allocated peak + the allocator's free block + the CUDA context. */
  gpuBytes: bytes,
  /** Per GPU: the peak the caching allocator counts (torch max_memory_allocated), comparable with a run's peak. Absent from plans made before the tuner counted it. */
  gpuAllocatedBytes: bytes.optional(),
  /** Per node. */
  hostBytes: bytes,
  /** Per node. */
  nvmeBytes: bytes,
  /** Exactly DeepSpeed's estimate_zero{2,3}_model_states_mem_needs (factor 1.5, zero_init true). */
  modelStates: z.object({ gpuBytes: bytes, hostBytes: bytes, estimator: z.string() }),
  /** The terms, named, so a reader can check the sum. */
  gpuTerms: z.record(z.string(), bytes),
  hostTerms: z.record(z.string(), bytes),
  nvmeTerms: z.record(z.string(), bytes),
});
export type MemoryEstimate = z.infer<typeof MemoryEstimateSchema>;

export const PredictionSchema = z.object({
  stepSeconds: z.number().nonnegative(),
  tflopsPerGpu: z.number().nonnegative(),
  tflopsAggregate: z.number().nonnegative(),
  tokensPerSecond: z.number().nonnegative(),
  /** Seconds per optimizer step, by term (compute, exposed comm/transfer/cpu/nvme). */
  terms: z.record(z.string(), z.number()),
  formula: z.string(),
  calibrated: z.boolean(),
});
export type Prediction = z.infer<typeof PredictionSchema>;

export const ConfigValidationSchema = z.object({
  ok: z.boolean(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })),
  /** Legal but costly settings (e.g. gradient clipping that turns SuperOffload's overlap off). */
  warnings: z.array(z.object({ field: z.string(), message: z.string() })),
});
export type ConfigValidation = z.infer<typeof ConfigValidationSchema>;

export const LimitingResourceSchema = z.enum(['gpu-memory', 'host-memory', 'nvme', 'gpu-count', 'requirement']);

/** A fit verdict with its margin: fits / at the edge (within the strategy's memory error) / does not fit,
 *  and what measured it where the machine's own runs did. */
export const FitDetailSchema = z.object({
  verdict: z.enum(['fits', 'edge', 'does-not-fit']),
  /** ± GPU bytes per GPU the verdict allows for. */
  gpuBandBytes: bytes,
  bandRelative: z.number().nonnegative(),
  bandSource: z.enum(['measured', 'uncalibrated']),
  /** Runs of this strategy the band was measured on. */
  bandRuns: z.number().int().nonnegative(),
  /** A run of this machine kind that decided the verdict (this configuration, or a neighbour that implies it). */
  measured: z
    .object({
      runId: z.string(),
      outcome: z.enum(['fits', 'cuda_oom', 'host_oom']),
      microBatch: z.number().int().positive(),
      peakGpuBytes: bytes.nullable(),
    })
    .nullable(),
});

/** A configuration at the edge of memory predicted faster than the strategy's fitting pick: worth a short trial. */
export const EdgeCandidateSchema = z.object({
  microBatch: z.number().int().positive(),
  /** 0–1: where the GPU's capacity falls inside the estimate's band (fit.ts gpuFitChance). */
  fitChance: z.number().min(0).max(1),
  reason: z.string(),
  spec: RunSpecSchema,
});

export const StrategyPlanSchema = z.object({
  id: z.string(),
  label: z.string(),
  engine: z.enum(['deepspeed', 'fsdp2']),
  fits: z.boolean(),
  /** Why it fits (with the headroom left) or which resource it exceeds. */
  reason: z.string(),
  limitedBy: LimitingResourceSchema.nullable(),
  /** The verdict with its margin (absent from plans made before verdicts carried a margin). */
  fit: FitDetailSchema.optional(),
  memory: MemoryEstimateSchema,
  predicted: PredictionSchema,
  /** ds_config.json (deepspeed) or the runner's fsdp block (fsdp2). */
  config: z.record(z.string(), z.unknown()),
  validation: ConfigValidationSchema,
  warnings: z.array(z.string()),
  /** Each knob the search chose for this strategy's spec and why (empty where nothing was searched). */
  knobReasons: z.array(z.string()).default([]),
  /** The run this strategy would be benchmarked with: its best knobs (micro batch, cores…) from the
   *  search and the prediction for exactly those — what runs/start runs and history stores. */
  spec: RunSpecSchema,
  /** The fastest configuration at the edge, where it is predicted faster than `spec` (tune trials it). */
  edge: EdgeCandidateSchema.nullable().optional(),
});
export type StrategyPlan = z.infer<typeof StrategyPlanSchema>;

/** The edge configuration the plan names for one trial beside its pick (trial-worth.ts edgeTrialFor). */
export const EdgeTrialSchema = z.object({
  strategyId: z.string(),
  microBatch: z.number().int().positive(),
  /** 0–1: where the GPU's capacity falls inside the estimate's band. */
  fitChance: z.number().min(0).max(1),
  /** Its predicted tokens/s over the pick's. */
  speedup: z.number().positive(),
  /** Its own prediction (the edge spec's), shown beside the pick's: both figures (absent from older plans). */
  predicted: z.object({ tokensPerSecond: z.number(), stepSeconds: z.number() }).optional(),
  /** The configHash of the edge spec: the configuration `tune` runs first (absent from older plans). */
  configHash: z.string().optional(),
  reason: z.string(),
});
export type EdgeTrial = z.infer<typeof EdgeTrialSchema>;

export const RecommendationSchema = z.object({
  strategyId: z.string(),
  microBatch: z.number().int().positive(),
  gradAccum: z.number().int().positive(),
  cpuadamCoresPerc: z.number().nullable(),
  /** The knobs the search chose for the winner (what its spec's config is generated from). */
  knobs: KnobsSchema.default({}),
  /** One line per chosen knob: its value and why. */
  knobReasons: z.array(z.string()).default([]),
  predicted: PredictionSchema,
  reason: z.string(),
  runnerUp: z.object({ strategyId: z.string(), microBatch: z.number().int(), predicted: PredictionSchema, reason: z.string() }).nullable(),
  /** A much faster configuration at the edge of memory, worth one trial before settling on the pick (absent from older plans). */
  edgeTrial: EdgeTrialSchema.nullable().optional(),
});
export type Recommendation = z.infer<typeof RecommendationSchema>;

export const HardwareProfileSchema = z.object({
  machineLabel: z.string(),
  machineSource: z.enum(['detected', 'file', 'catalogued']),
  /** The machine's machineId, null for a catalogued one (never detected): each spec's prediction names it. */
  machineId: z.string().nullable().optional(),
  gpuName: z.string().nullable(),
  gpuCount: z.number().int().nonnegative(),
  gpuMemoryBytes: bytes,
  hostMemoryBytes: bytes,
  nvmeBytes: bytes,
  physicalCores: z.number().int().nonnegative(),
  matmulTflops: z.number().nonnegative(),
  hostLinkBytesPerSecond: z.number().nonnegative(),
  /** Pageable host→GPU copy rate, where measured (else the tuner derives it from the link kind). */
  hostLinkPageableBytesPerSecond: z.number().nonnegative().optional(),
  peerLinkBytesPerSecond: z.number().nonnegative(),
  interNodeBytesPerSecond: z.number().nonnegative(),
  diskBytesPerSecond: z.number().nonnegative(),
  hostMemoryBytesPerSecond: z.number().nonnegative(),
  /** Host memory copy rate (read + write) by thread count, where measured: few cores already draw most of it. */
  hostMemoryByThreads: z.array(z.object({ threads: z.number().int().positive(), bytesPerSecond: z.number().positive() })).optional(),
  /** CPU Adam (params/s for the whole node) by thread count. */
  cpuAdam: z.array(z.object({ threads: z.number().int().positive(), paramsPerSecond: z.number().positive() })),
  /** torch's CPU AdamW (FSDP2 offload's step), params/s of the whole host at `threads`, by implementation: where
   *  measured on this machine (else FSDP2 reads it as a share of cpuAdam, sources.torchAdam says which). */
  torchAdam: z
    .object({
      threads: z.number().int().positive(),
      plain: z.number().positive().optional(),
      foreach: z.number().positive().optional(),
      fused: z.number().positive().optional(),
    })
    .optional(),
  /** Where each figure came from: 'measured' | 'catalog:<id>' | 'default'. */
  sources: z.record(z.string(), z.string()),
});
export type HardwareProfile = z.infer<typeof HardwareProfileSchema>;

export const PlanResultSchema = z.object({
  params: z.number().int().positive(),
  largestLayerParams: z.number().int().positive(),
  model: ModelArchSchema,
  workload: WorkloadSchema,
  profile: HardwareProfileSchema,
  strategies: z.array(StrategyPlanSchema),
  recommended: RecommendationSchema.nullable(),
  scenario: z.string().nullable(),
  notes: z.array(z.string()),
  /** Engine start-up per run measured on this machine (or its kind): wall time less step time, median of
   *  recent completed runs, of this model where any. Absent without runs — estimates then assume one. */
  engineStart: z.object({ seconds: z.number().positive(), runs: z.number().int().positive(), sameModel: z.boolean() }).optional(),
  /** Seconds per step measured here for a strategy's exact configuration, by its spec's configHash: the
   *  median over its completed runs of each run's mean step. Absent without such runs. */
  measuredSteps: z.record(z.string(), z.object({ seconds: z.number().positive(), runs: z.number().int().positive() })).optional(),
  /** Whose host measurement the figures rest on and which of that machine's measurements, in words ("Host
   *  figures: measurements of this machine (id, measured …: the one picked)"); the Plan page shows it, a note repeats it. */
  hostFigures: z.string().optional(),
  /** What the step times and activation memory rest on: the workload's own kernels measured on this GPU
   *  (kernel_probe.py), or the catalogue's constants and why (no GPU, a machine file, a failed probe). */
  kernels: PlanKernelsSchema.optional(),
});
export type PlanResult = z.infer<typeof PlanResultSchema>;

// ---------------------------------------------------------------- channels of the plan domain

export const planRequests = {
  'plan/presets': {
    request: z.object({}).strict(),
    response: z.object({
      models: z.array(ModelArchSchema.extend({ params: z.number().int().positive() })),
      strategies: z.array(StrategyPresetSchema),
      scenarios: z.array(ScenarioSchema),
      gpus: z.array(GpuCatalogEntrySchema),
    }),
  },
  'plan/compute': {
    request: z
      .object({
        /** Either a workload or a scenario id (the scenario's workload and machine, fields of `workload` overriding). */
        workload: WorkloadOverridesSchema.optional(),
        scenario: z.string().optional(),
        /** Plan for this machine instead of the detected one. */
        machine: MachineSchema.optional(),
      })
      .strict(),
    response: PlanResultSchema,
  },
  'plan/import-hf-config': {
    request: z.object({ text: z.string(), id: z.string().optional() }).strict(),
    response: ModelArchSchema,
  },
  'plan/config': {
    request: z
      .object({
        workload: WorkloadSchema,
        strategyId: z.string(),
        /** A user-edited ds_config to validate against the workload instead of the generated one. */
        config: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
    response: z.object({ config: z.record(z.string(), z.unknown()), validation: ConfigValidationSchema }),
  },
} as const;

export const planEvents = {} as const;
