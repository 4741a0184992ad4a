// Slurm targets: a cluster reached through its scheduler (sbatch/srun/squeue/scancel) rather than
// over ssh. A target is what the user's jobs ask for (partition, account, QOS, time, nodes, GPUs)
// and where things live on the shared filesystem. Every value that is written into an sbatch
// script is held to a pattern here and quoted again by the script builder.
import { z } from 'zod';
import { ABSOLUTE_PATH_PATTERN, CLUSTER_NAME_PATTERN } from './cluster';
import { MachineSchema } from './hardware';

// Partition, account and QOS names: Slurm's own are plain words.
export const SLURM_WORD_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;
// A node feature expression (--constraint): features joined by & | , and brackets, counts with *.
export const SLURM_CONSTRAINT_PATTERN = /^[A-Za-z0-9_.&|,()[\]*:!-]{1,512}$/;
export const SLURM_JOB_ID_PATTERN = /^[0-9]{1,12}(_[0-9]{1,9})?$/;

const word = (what: string) => z.string().regex(SLURM_WORD_PATTERN, `must be a Slurm ${what} name (letters, digits, . _ + -)`);

export const SlurmTargetSchema = z
  .object({
    kind: z.literal('slurm'),
    name: z.string().regex(CLUSTER_NAME_PATTERN, 'must be letters, digits, dot, dash or underscore'),
    partition: word('partition'),
    account: word('account').nullable().optional(),
    qos: word('QOS').nullable().optional(),
    // sbatch --time, in minutes: the job is killed past it (failure class 'timeout').
    timeLimitMinutes: z
      .number()
      .int()
      .min(1)
      .max(365 * 24 * 60),
    nodes: z.number().int().min(1).max(4096),
    // GPUs per node as gres (--gres=gpu[:type]:N); 0 runs on CPUs (one process per node).
    gpusPerNode: z.number().int().min(0).max(64),
    gpuType: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be a gres type such as a100 or h100')
      .nullable()
      .optional(),
    constraint: z
      .string()
      .regex(SLURM_CONSTRAINT_PATTERN, 'must be a Slurm feature expression (letters, digits, & | , [ ] * :)')
      .nullable()
      .optional(),
    cpusPerTask: z.number().int().min(1).max(1024).nullable().optional(),
    // --mem per node in MiB; null: the partition's default.
    memPerNodeMiB: z.number().int().min(1).nullable().optional(),
    // The engine's interpreter on the shared filesystem (a venv with torch and DeepSpeed).
    pythonPath: z
      .string()
      .regex(ABSOLUTE_PATH_PATTERN, 'must be an absolute path on the shared filesystem without spaces or shell characters'),
    // Lines the job runs before the interpreter, as the user wrote them (`module load cuda/12.4`,
    // `source /opt/conda/etc/profile.d/conda.sh && conda activate ds`). They are the user's own
    // shell, shown in the script; one line each.
    setup: z
      .array(
        z
          .string()
          .max(1000)
          .regex(/^[^\n\r\0]*$/, 'must be one line'),
      )
      .max(32)
      .optional(),
    // A folder every node sees at the same path: specs, scripts, the runner, the output of each job.
    workDir: z
      .string()
      .regex(ABSOLUTE_PATH_PATTERN, 'must be an absolute path on the shared filesystem without spaces or shell characters'),
    // Where the runner sits on the shared filesystem; default <workDir>/engine (staged there by the app).
    engineDir: z.string().regex(ABSOLUTE_PATH_PATTERN, 'must be an absolute path without spaces or shell characters').nullable().optional(),
    masterPort: z.number().int().min(1024).max(65535).default(29500),
    // A job that waits longer than this in the queue is cancelled and recorded 'pending_too_long'; null: wait.
    maxPendingMinutes: z.number().int().min(1).nullable().optional(),
    // A sweep's runs as jobs: 'serial' submits each after the previous one ended (the app decides),
    // 'chain' submits them all at once, each `--dependency=afterany:` the one before (Slurm keeps the
    // order; one measures at a time), 'array' as one job array (Slurm runs as many at once as it can).
    sweepMode: z.enum(['serial', 'chain', 'array']).default('serial'),
    // Extra environment for every rank (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, …).
    env: z
      .record(
        z.string().regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'must be an upper-case variable name'),
        z.string().regex(/^[A-Za-z0-9._,:/=+-]{0,1024}$/, 'must be a plain value (no spaces or shell characters)'),
      )
      .optional(),
  })
  .strict();

/** A partition's node shape as Slurm reports it (sinfo / scontrol show node). */
export const SlurmNodeShapeSchema = z.object({
  partition: z.string(),
  nodes: z.array(z.string()),
  states: z.array(z.string()),
  cpus: z.number().int().nullable(),
  memBytes: z.number().nullable(),
  gpus: z.number().int(),
  gpuType: z.string().nullable(),
  features: z.array(z.string()),
  maxTime: z.string().nullable(),
});

export const SlurmTargetRecordSchema = z.object({
  target: SlurmTargetSchema,
  savedAt: z.string(),
  detected: SlurmNodeShapeSchema.extend({ detectedAt: z.string() }).nullable(),
});

export const SlurmPreflightRowSchema = z.object({
  check: z.enum(['sbatch', 'partition', 'request', 'workdir', 'engine', 'shared']),
  ok: z.boolean(),
  detail: z.string(),
  fix: z.string().nullable(),
});

/** What history keeps of the job a run ran as. */
export const SlurmJobRecordSchema = z.object({
  scheduler: z.literal('slurm'),
  target: z.string(),
  partition: z.string(),
  jobId: z.string(),
  nodes: z.array(z.string()),
  state: z.string(),
  reason: z.string().nullable(),
  exitCode: z.string().nullable(),
  maxRssBytes: z.number().nullable(),
  runDir: z.string(),
  scriptPath: z.string(),
});

export type SlurmTarget = z.infer<typeof SlurmTargetSchema>;
export type SlurmTargetInput = z.input<typeof SlurmTargetSchema>;
export type SlurmNodeShape = z.infer<typeof SlurmNodeShapeSchema>;
export type SlurmTargetRecord = z.infer<typeof SlurmTargetRecordSchema>;
export type SlurmPreflightRow = z.infer<typeof SlurmPreflightRowSchema>;
export type SlurmJobRecord = z.infer<typeof SlurmJobRecordSchema>;

const ByName = z.object({ name: z.string().regex(CLUSTER_NAME_PATTERN) }).strict();

export const slurmRequests = {
  'slurm/list': { request: z.object({}).strict(), response: z.object({ targets: z.array(SlurmTargetRecordSchema) }) },
  'slurm/save': { request: SlurmTargetSchema, response: SlurmTargetRecordSchema },
  'slurm/delete': { request: ByName, response: z.object({ deleted: z.boolean() }) },
  /** Reads the partition's node shape (sinfo, scontrol show node) and stores it with the target. */
  'slurm/detect': { request: ByName, response: SlurmNodeShapeSchema },
  /** The machine a plan for the target is for: one node of its partition as `slurm/detect` stored it. */
  'slurm/machine': { request: ByName, response: MachineSchema },
  'slurm/preflight': { request: ByName, response: z.object({ ok: z.boolean(), rows: z.array(SlurmPreflightRowSchema) }) },
  /** The sbatch script a spec would run as (nothing is submitted). */
  'slurm/script': {
    request: z.object({ name: z.string().regex(CLUSTER_NAME_PATTERN), spec: z.unknown() }).strict(),
    response: z.object({ script: z.string() }),
  },
} as const;

export const slurmEvents = {} as const;
