// Engine (benchmark runs): the runner's JSON-lines protocol, the run spec it is given, the
// failure classes, and the channels that start/cancel sweeps and stream their progress.
// Runner messages use `.passthrough()` so a field a newer runner adds survives validation and
// is stored; requests are `.strict()` like every request of the contract.
import { z } from 'zod';
import { RunStatusSchema } from './common';
import { WorkloadSchema } from './plan';
import { RunSampleSchema } from './step-sample';
import { EngineKindSchema, PrecisionSchema, RunSpecSchema } from './run-spec';
import { CLUSTER_NAME_PATTERN } from './cluster';

// ---------------------------------------------------------------- the run spec: run-spec.ts

// ---------------------------------------------------------------- runner → app messages

const base = { v: z.literal(1), t: z.number() };
const stats = z.object({ median: z.number(), min: z.number(), max: z.number(), mean: z.number() }).passthrough();
const bytes = z.number().nullable();

export const HelloMessageSchema = z
  .object({
    ...base,
    type: z.literal('hello'),
    runnerVersion: z.string(),
    python: z.string(),
    torch: z.string(),
    deepspeed: z.string().nullable(),
    cuda: z.string().nullable(),
    accelerator: z.enum(['cuda', 'cpu']),
    devices: z.array(z.object({ index: z.number().int(), name: z.string(), memoryBytes: bytes }).passthrough()),
    rank: z.number().int(),
    worldSize: z.number().int(),
    hostname: z.string(),
  })
  .passthrough();

export const ConfigMessageSchema = z
  .object({
    ...base,
    type: z.literal('config'),
    engine: EngineKindSchema,
    params: z.number(),
    trainableParams: z.number(),
    layers: z.number().int(),
    hidden: z.number().int(),
    seqLen: z.number().int(),
    globalBatch: z.number().int(),
    microBatch: z.number().int(),
    gradAccum: z.number().int(),
    worldSize: z.number().int(),
    activationCheckpointing: z.boolean(),
    precision: PrecisionSchema,
    effectiveConfig: z.unknown(),
    formula: z.unknown(),
  })
  .passthrough();

/** One step as the runner reports it: the stored sample's fields (step-sample.ts) and the aggregate TFLOPS.
 *  tflopsPerGpu is null where no figure was given (the runner computes one for every step; a
 *  Mixture-of-Experts model's counts the parameters a token computes, docs/models.md). */
export const StepMessageSchema = RunSampleSchema.extend({
  ...base,
  type: z.literal('step'),
  step: z.number().int().positive(), // 1-based, warm-up steps included
  tflopsAggregate: z.number().nullable(),
}).passthrough();

export const MemoryMessageSchema = z.object({ ...base, type: z.literal('memory') }).passthrough();

export const ResultMessageSchema = z
  .object({
    ...base,
    type: z.literal('result'),
    status: z.literal('completed'),
    measuredSteps: z.number().int(),
    stepSeconds: stats,
    tflopsPerGpu: stats.nullable(),
    tflopsAggregate: stats.nullable(),
    tokensPerSecond: stats,
    peakGpuBytes: bytes,
    peakHostBytes: bytes,
    lossFirst: z.number().nullable(),
    lossLast: z.number().nullable(),
    overheadFraction: z.number().nullable(),
    /** CUDA caching-allocator retries (free the cache, retry) during the measured steps: stalls of a GPU near full. Null off CUDA; absent from older runners. */
    gpuAllocRetries: z.number().int().nonnegative().nullable().optional(),
  })
  .passthrough();

/** Classes the runner itself reports. */
export const RunnerErrorClassSchema = z.enum([
  'cuda_oom',
  'host_oom',
  'op_build',
  'distributed',
  'missing_package',
  'bad_config',
  // the loss became NaN/inf: the run measured a model that no longer trains
  'diverged',
  'timeout',
  'cancelled',
  'unsupported',
  'internal',
]);

/** Every class a finished run can carry: the runner's, plus what only the orchestrator can see
 *  (a crash without an error line; a runner that broke the protocol; one that never started). */
export const ErrorClassSchema = z.enum([
  ...RunnerErrorClassSchema.options,
  'crashed',
  'protocol',
  'spawn',
  // A run that was a Slurm job: what only the scheduler can say (its time limit is 'timeout', its
  // out-of-memory kill 'host_oom').
  'pending_too_long',
  'node_failure',
  'preempted',
  'job_refused',
]);

export const ErrorMessageSchema = z
  .object({
    ...base,
    type: z.literal('error'),
    class: RunnerErrorClassSchema,
    message: z.string(),
    fix: z.string().nullable(),
    detail: z.unknown(),
  })
  .passthrough();

// Host-side checks the runner makes before it starts (memory, pinned limit, NVMe path, ops).
export const PreflightMessageSchema = z
  .object({
    ...base,
    type: z.literal('preflight'),
    checks: z.array(z.object({ name: z.string(), ok: z.boolean() }).passthrough()),
    mode: z.unknown().optional(),
  })
  .passthrough();

export const runnerMessageSchemas = {
  preflight: PreflightMessageSchema,
  hello: HelloMessageSchema,
  config: ConfigMessageSchema,
  step: StepMessageSchema,
  memory: MemoryMessageSchema,
  result: ResultMessageSchema,
  error: ErrorMessageSchema,
} as const;

export const RunnerMessageSchema = z.discriminatedUnion('type', [
  HelloMessageSchema,
  PreflightMessageSchema,
  ConfigMessageSchema,
  StepMessageSchema,
  MemoryMessageSchema,
  ResultMessageSchema,
  ErrorMessageSchema,
]);

export type ResultMessage = z.infer<typeof ResultMessageSchema>;
export type ErrorMessage = z.infer<typeof ErrorMessageSchema>;
export type RunnerMessage = z.infer<typeof RunnerMessageSchema>;
export type RunnerErrorClass = z.infer<typeof RunnerErrorClassSchema>;
export type ErrorClass = z.infer<typeof ErrorClassSchema>;

// ---------------------------------------------------------------- requests

export const StartRunsRequestSchema = z
  .object({
    // The specs to run, exactly as the plan made them (plan/compute: strategies[].spec). Each is run
    // `repeats` times unchanged; runs/start sets only runId, steps, warmup, seed and maxSeconds.
    specs: z.array(RunSpecSchema).min(1).max(64).optional(),
    // Or a workload and strategy ids: the backend plans them (the same plan/compute) and runs the
    // plan's spec of each strategy. Exactly one of `specs` and `workload` + `strategies`.
    workload: WorkloadSchema.optional(),
    strategies: z.array(z.string().min(1)).min(1).max(64).optional(),
    repeats: z.number().int().positive().max(100).default(1),
    // Measured steps per run; the warm-up steps come on top (the runner's spec counts both).
    steps: z.number().int().positive().max(100000).default(10),
    warmup: z.number().int().nonnegative().max(10000).default(3),
    // An interpreter chosen by the user (Setup); run with an argument vector, never a shell.
    python: z.string().min(1).optional(),
    // Per-run wall-clock limit in seconds (the runner gets it; the orchestrator enforces it too).
    maxSeconds: z
      .number()
      .positive()
      .max(7 * 24 * 3600)
      .optional(),
    seed: z.number().int().nonnegative().optional(),
    tags: z.array(z.string()).max(32).optional(),
    // With workload + strategies: run a strategy the plan says needs a GPU on this machine's CPU all
    // the same (DeepSpeed's CPU accelerator runs ZeRO without offload too): CPU figures, no prediction.
    force: z.boolean().optional(),
    // Run every spec as a job on this Slurm target (slurm/save) instead of a child process here.
    slurm: z.string().regex(CLUSTER_NAME_PATTERN, 'must be the name of a saved Slurm target (slurm/list)').optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.specs && (r.workload || r.strategies))
      ctx.addIssue({ code: 'custom', path: ['specs'], message: 'give either specs or workload + strategies, not both' });
    else if (!r.specs && !(r.workload && r.strategies))
      ctx.addIssue({ code: 'custom', path: [r.workload ? 'strategies' : 'workload'], message: 'is required (or give specs)' });
  });

/** One planned run of a sweep, in the order the sweep runs them (repeats outer, specs inner). */
export const PlannedRunSchema = z.object({ runId: z.string(), strategy: z.string(), repeatIndex: z.number().int().nonnegative() });
export type PlannedRun = z.infer<typeof PlannedRunSchema>;

export type StartRunsRequest = z.infer<typeof StartRunsRequestSchema>;

// ---------------------------------------------------------------- events

const sweepPosition = {
  sweepId: z.string(),
  runId: z.string(),
  runIndex: z.number().int(), // 0-based position of this run in the sweep
  runCount: z.number().int(),
  strategy: z.string(),
  repeatIndex: z.number().int(),
};

/** A step of a running sweep: the stored sample (step-sample.ts) placed in its sweep, with the clock. */
export const RunProgressEventSchema = RunSampleSchema.extend({
  ...sweepPosition,
  total: z.number().int(), // warm-up + measured steps
  elapsedSeconds: z.number(), // since the sweep started
  etaSeconds: z.number().nullable(), // until the sweep ends; null until one step is timed
});

export const RunStatusEventSchema = z.object({
  ...sweepPosition,
  phase: z.enum(['started', 'finished']),
  status: RunStatusSchema,
  errorClass: ErrorClassSchema.nullable(),
  message: z.string().nullable(),
  fix: z.string().nullable(),
  tflopsPerGpu: z.number().nullable(),
  stepSeconds: z.number().nullable(),
  // true on the last event of a sweep: nothing more will come for this sweepId
  sweepDone: z.boolean(),
});

export const RunLogEventSchema = z.object({
  sweepId: z.string(),
  runId: z.string(),
  lines: z.array(z.string()),
});

export type RunProgressEvent = z.infer<typeof RunProgressEventSchema>;
export type RunStatusEvent = z.infer<typeof RunStatusEventSchema>;
export type RunLogEvent = z.infer<typeof RunLogEventSchema>;

// ---------------------------------------------------------------- channels of the engine domain

export const engineRequests = {
  'runs/start': {
    request: StartRunsRequestSchema,
    response: z.object({ sweepId: z.string(), runIds: z.array(z.string()), runs: z.array(PlannedRunSchema) }),
  },
  'runs/cancel': {
    // force: SIGKILL now instead of SIGINT then SIGKILL after the grace period (a second Ctrl-C).
    request: z.object({ sweepId: z.string(), force: z.boolean().optional() }).strict(),
    response: z.object({ cancelled: z.boolean() }),
  },
} as const;

export const engineEvents = {
  'runs/progress': RunProgressEventSchema,
  'runs/status': RunStatusEventSchema,
  'runs/log': RunLogEventSchema,
} as const;
