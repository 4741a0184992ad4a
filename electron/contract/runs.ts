// Run records as stored in history and listed by `runs/list`.
import { z } from 'zod';
import { RunStatusSchema } from './common';
import type { RanWorkload } from './ran-workload';
import { RunSampleSchema } from './step-sample';
import { SlurmJobRecordSchema } from './slurm';
import { WORKLOAD_COLUMNS, type WorkloadColumnField } from './workload-options';
import {
  StoredConfigSchema,
  StoredHelloSchema,
  StoredMachineSchema,
  StoredPredictionSchema,
  StoredResultSchema,
  StoredSpecSchema,
  UnparsedDocumentSchema,
} from './stored';

// The step sample and the stored-document readings are this domain's too (index.ts exports runs.ts).
export * from './step-sample';
export * from './stored';

const countColumn = () => z.number().int().nullable().optional();
const textColumn = () => z.string().nullable().optional();
type ColumnSchema<K extends WorkloadColumnField> = RanWorkload[K] extends string | null
  ? ReturnType<typeof textColumn>
  : ReturnType<typeof countColumn>;

/** The summary's workload fields, one per workload column (contract workload-options.ts `column`). */
const workloadSummaryShape = Object.fromEntries(WORKLOAD_COLUMNS.map((c) => [c.reads, c.count ? countColumn() : textColumn()])) as {
  [K in WorkloadColumnField]: ColumnSchema<K>;
};

export const RunSummarySchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  status: RunStatusSchema,
  model: z.string(),
  strategy: z.string(),
  engine: z.string(), // deepspeed | fsdp2
  sweepId: z.string().nullable(),
  repeatIndex: z.number().int(),
  machineId: z.string().nullable(),
  tags: z.array(z.string()),
  notes: z.string(),
  errorClass: z.string().nullable(),
  errorMessage: z.string().nullable(),
  // Summary figures (medians over measured steps); null until a run completes.
  tflopsPerGpu: z.number().nullable(),
  tokensPerSecond: z.number().nullable(),
  stepSeconds: z.number().nullable(),
  peakGpuBytes: z.number().nullable(),
  peakHostBytes: z.number().nullable(),
  // The workload it ran, as its stored documents read (ranWorkloadOf); null where none says.
  ...workloadSummaryShape,
  /** What determines speed, hashed (engine, config, model, batch shape): equal hash, same run setup. */
  configHash: z.string().nullable().optional(),
});

export const RunFilterSchema = z
  .object({
    model: z.string().optional(),
    strategy: z.string().optional(),
    status: RunStatusSchema.optional(),
    machineId: z.string().optional(),
    tag: z.string().optional(),
    since: z.string().optional(),
    until: z.string().optional(),
    limit: z.number().int().positive().max(100000).optional(),
    offset: z.number().int().nonnegative().optional(),
  })
  .strict();

export type RunStatus = z.infer<typeof RunStatusSchema>;
export type RunSummary = z.infer<typeof RunSummarySchema>;
export type RunFilter = z.infer<typeof RunFilterSchema>;

// One stored step of a run: RunSampleSchema (step-sample.ts; the samples table keeps these columns only).

// Everything stored about one run: `runs/get`. The JSON documents are lenient readings of their owners'
// schemas (stored.ts: RunSpec, the runner's messages, Machine), parsed once where history reads them.
export const RunDetailSchema = z.object({
  summary: RunSummarySchema,
  errorFix: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  exitSignal: z.string().nullable(),
  steps: z.number().int().nullable(), // measured steps asked for
  warmup: z.number().int().nullable(),
  spec: StoredSpecSchema.nullable(), // the spec.json given to the runner
  hello: StoredHelloSchema.nullable(), // the runner's hello (versions, devices)
  config: StoredConfigSchema.nullable(), // the runner's config message (params, effective config, formula)
  result: StoredResultSchema.nullable(), // the runner's result message
  predicted: StoredPredictionSchema.nullable(), // the tuner's prediction, kept beside the measurement
  snapshotId: z.string().nullable(),
  snapshot: StoredMachineSchema.nullable(), // the Machine at run time
  /** The documents above that did not parse as their owners' schemas (each then reads as null, or
   *  without the fields named), with what was stored; absent or empty when all of them did. */
  unparsed: z.array(UnparsedDocumentSchema).optional(),
  samples: z.array(RunSampleSchema),
  logPath: z.string().nullable(),
  logTail: z.array(z.string()),
  /** The Slurm job the run ran as (its id, nodes, last state); null for a run of this machine. */
  job: SlurmJobRecordSchema.nullable().optional(),
});

export type RunDetail = z.infer<typeof RunDetailSchema>;

// ---- channels of the history domain ----
export const runsRequests = {
  'runs/get': {
    request: z.object({ id: z.string(), logLines: z.number().int().nonnegative().max(100000).optional() }).strict(),
    response: RunDetailSchema,
  },
  'runs/list': {
    request: RunFilterSchema,
    response: z.object({ runs: z.array(RunSummarySchema), total: z.number().int() }),
  },
} as const;

export const runsEvents = {} as const;
