// History beyond the list: comparing runs, moving them between machines (JSON export/import),
// deleting and annotating them, and loading the committed sample dataset.
import { z } from 'zod';
import { RunStatusSchema } from './common';
import { RunSummarySchema } from './runs';
import { SlurmJobRecordSchema } from './slurm';

// ---- metrics: each says its unit and whether higher or lower is better (Phoronix style) ----
export const MetricIdSchema = z.enum(['tflopsPerGpu', 'tokensPerSecond', 'stepSeconds', 'peakGpuBytes', 'peakHostBytes', 'peakNvmeBytes']);
export type MetricId = z.infer<typeof MetricIdSchema>;

export const MetricInfoSchema = z.object({
  id: MetricIdSchema,
  label: z.string(),
  unit: z.string(),
  better: z.enum(['higher', 'lower']),
});
export type MetricInfo = z.infer<typeof MetricInfoSchema>;

/** The metrics of a comparison, in display order. Data, so the UI, CLI and reports agree. */
export const METRICS: readonly MetricInfo[] = [
  { id: 'tflopsPerGpu', label: 'Model TFLOPS per GPU', unit: 'TFLOPS', better: 'higher' },
  { id: 'tokensPerSecond', label: 'Tokens per second', unit: 'tokens/s', better: 'higher' },
  { id: 'stepSeconds', label: 'Step time', unit: 's', better: 'lower' },
  { id: 'peakGpuBytes', label: 'GPU memory peak', unit: 'bytes', better: 'lower' },
  { id: 'peakHostBytes', label: 'Host memory peak', unit: 'bytes', better: 'lower' },
  { id: 'peakNvmeBytes', label: 'NVMe used', unit: 'bytes', better: 'lower' },
];

// ---- the stored record of one run, as exported ----
// Rows as the store keeps them, column by column, so the round trip is lossless whatever
// columns later migrations add: a file from a newer schema imports the columns this one has
// and says which it dropped. JSON documents (details, snapshot body) are parsed for readability.
const Scalar = z.union([z.string(), z.number(), z.null()]);

export const ExportedRunSchema = z.object({
  run: z
    .object({
      id: z.string().min(1),
      created_at: z.string(),
      status: RunStatusSchema,
      model: z.string(),
      strategy: z.string(),
      engine: z.string(),
    })
    .catchall(Scalar),
  details: z.record(z.string(), z.unknown()).nullable(),
  snapshot: z.object({ id: z.string(), body: z.unknown() }).catchall(Scalar).nullable(),
  // Columnar: a million samples stay a compact file. Values in `columns` order.
  samples: z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.number().nullable())) }),
  // The Slurm job the run ran as (history's run_jobs). Absent (or null) for a run of this machine, and in a
  // file written before runs files carried it.
  job: SlurmJobRecordSchema.nullable().optional(),
});
export type ExportedRun = z.infer<typeof ExportedRunSchema>;

export const RUNS_FILE_FORMAT = 'offload-studio/runs';
export const RunsFileSourceSchema = z
  .object({
    label: z.string(), // "sample: H200 SXM 141 GB, measured 2026-11-28 on RunPod"
    machine: z.string().nullable(),
    measuredAt: z.string().nullable(),
    note: z.string().nullable(),
  })
  .nullable();
export const RunsFileSchema = z.object({
  format: z.literal(RUNS_FILE_FORMAT),
  version: z.literal(1),
  schemaVersion: z.number().int(), // the exporting database's user_version
  exportedAt: z.string(),
  source: RunsFileSourceSchema,
  runs: z.array(ExportedRunSchema),
});
export type RunsFile = z.infer<typeof RunsFileSchema>;

/** A compared run: its summary plus what the charts need from its details. */
export const ComparedRunSchema = RunSummarySchema.extend({
  label: z.string(), // "SuperOffload #2"
  peakNvmeBytes: z.number().nullable(),
  predictedTflopsPerGpu: z.number().nullable(),
  predictedStepSeconds: z.number().nullable(),
  snapshotId: z.string().nullable(),
  hostname: z.string().nullable(),
});
export type ComparedRun = z.infer<typeof ComparedRunSchema>;

// ---- a comparison ----
export const StatsSchema = z.object({
  n: z.number().int(),
  median: z.number(),
  min: z.number(),
  max: z.number(),
  mean: z.number(),
  stdev: z.number(), // sample standard deviation (n − 1); 0 for a single value
  values: z.array(z.number()), // raw value per repeat, in repeat order
});
export type Stats = z.infer<typeof StatsSchema>;

export const CompareGroupSchema = z.object({
  key: z.string(),
  label: z.string(), // "SuperOffload" or "SuperOffload · llama-3.2-3b" when models differ
  model: z.string(),
  strategy: z.string(),
  engine: z.string(),
  machineId: z.string().nullable(),
  sweepId: z.string().nullable(),
  /** The runs' config hash (a group is one sweep's runs of one config); null for runs without one. */
  configHash: z.string().nullable().optional(),
  runIds: z.array(z.string()),
  stats: z.record(MetricIdSchema, StatsSchema.nullable()),
  /** Percent change of the median against the baseline group (+ means a larger number). */
  deltaPct: z.record(MetricIdSchema, z.number().nullable()),
  /** Baseline median ÷ this median or the reverse, so > 1 always reads "better". */
  speedup: z.number().nullable(),
  isBaseline: z.boolean(),
});
export type CompareGroup = z.infer<typeof CompareGroupSchema>;

export const DiffEntrySchema = z.object({
  path: z.string(), // "gpus[0].name", "zero_optimization.offload_optimizer.ratio"
  values: z.array(z.string()), // one per compared run (JSON text; "—" when absent)
});
export type DiffEntry = z.infer<typeof DiffEntrySchema>;

export const CapacitySchema = z.object({
  gpuBytes: z.number().nullable(),
  hostBytes: z.number().nullable(),
  nvmeBytes: z.number().nullable(),
  /** The machine these figures are of: the compared runs' own (its hostname), not the one the app runs on. */
  machine: z.string().nullable().optional(),
});

export const ComparisonSchema = z.object({
  metrics: z.array(MetricInfoSchema),
  primary: MetricIdSchema,
  runs: z.array(ComparedRunSchema),
  /** Measured steps per run (warm-up left out), for the step-time and TFLOPS lines. */
  series: z.array(
    z.object({
      runId: z.string(),
      label: z.string(),
      steps: z.array(z.number()),
      stepSeconds: z.array(z.number().nullable()),
      tflopsPerGpu: z.array(z.number().nullable()),
    }),
  ),
  groups: z.array(CompareGroupSchema),
  baselineKey: z.string().nullable(),
  headline: z.string().nullable(),
  snapshotDiff: z.array(DiffEntrySchema),
  configDiff: z.array(DiffEntrySchema),
  capacity: CapacitySchema,
  warnings: z.array(z.string()),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

const Ids = z.array(z.string().min(1)).min(1).max(10000);
const FilePath = z.string().min(1).max(4096);
/** The largest runs file runs/import takes, in UTF-8 bytes on every door (the CLI's file, the app's
 *  and serve's content): counted in characters, a CJK file of 119.5 MB once passed over serve. */
export const RUNS_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** One message over serve's WebSocket: requests are small — but runs/import carries a runs file as a
 *  JSON string (escaping can double it), so that channel alone may send up to WIRE_IMPORT_MAX_BYTES. */
export const WIRE_MESSAGE_MAX_BYTES = 1024 * 1024;
export const WIRE_IMPORT_MAX_BYTES = 2 * RUNS_FILE_MAX_BYTES + WIRE_MESSAGE_MAX_BYTES;
const ImportResultSchema = z.object({
  imported: z.array(z.string()),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
  source: RunsFileSourceSchema,
  droppedColumns: z.array(z.string()), // columns of the file this database does not have
});
export type ImportResult = z.infer<typeof ImportResultSchema>;

// ---- channels ----
export const compareRequests = {
  'compare/runs': {
    request: z.object({ ids: Ids.max(64), baselineId: z.string().optional() }).strict(),
    response: ComparisonSchema,
  },
  'runs/export': {
    // The same rules as reports/export: an absolute .json path whose folder exists; an existing
    // file is replaced only with `overwrite` (never a folder).
    request: z.object({ ids: Ids.optional(), path: FilePath, overwrite: z.boolean().optional() }).strict(),
    response: z.object({ path: z.string(), count: z.number().int(), bytes: z.number().int() }),
  },
  // A runs file, as its text (`content`, with its file `name` for the record) from the app and
  // the headless server: a page never names a file on the machine running the backend. `path`
  // is for the CLI only (the backend refuses it on other transports).
  'runs/import': {
    request: z
      .object({
        path: FilePath.optional(),
        // (a string of that many characters is at least that many bytes; the bytes are counted by the importer)
        content: z.string().max(RUNS_FILE_MAX_BYTES).optional(),
        name: z.string().min(1).max(255).optional(),
      })
      .strict()
      .refine((r) => (r.path === undefined) !== (r.content === undefined), {
        message: "give either 'content' (the file's text) or 'path', not both",
        path: ['content'],
      }),
    response: ImportResultSchema,
  },
  'runs/delete': {
    request: z.object({ ids: Ids }).strict(),
    response: z.object({ deleted: z.number().int() }),
  },
  'runs/update': {
    request: z
      .object({
        id: z.string().min(1),
        tags: z.array(z.string().min(1).max(64)).max(64).optional(),
        notes: z.string().max(20000).optional(),
      })
      .strict(),
    response: RunSummarySchema,
  },
  'samples/load': {
    request: z.object({}).strict(),
    /** `files`: every bundled dataset, in name order; `file`: the first (older clients read it). */
    response: ImportResultSchema.extend({ file: z.string(), files: z.array(z.string()) }),
  },
} as const;

export const compareEvents = {
  // Runs were added, removed or edited (import, delete, update): lists refresh.
  'runs/changed': z.object({ reason: z.enum(['import', 'delete', 'update']), ids: z.array(z.string()) }),
} as const;
