// Clusters: several hosts run one benchmark through DeepSpeed's own launcher (no launcher of
// ours). A cluster is stored in <dataDir>/clusters.json; it becomes a DeepSpeed hostfile and a
// `deepspeed --hostfile …` argument vector. Every string that reaches ssh or the hostfile is
// held to a strict pattern here, so no request can smuggle an option or a shell word.
import { z } from 'zod';

// A DNS name or IPv4 address. No leading '-' (ssh would read it as an option), no '@', no spaces.
export const HOST_PATTERN = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
// POSIX portable user names (no leading '-').
export const SSH_USER_PATTERN = /^[A-Za-z_][A-Za-z0-9._-]{0,31}$/;
// An absolute path of plain characters: pdsh hands the command to a remote shell, so no spaces
// or shell metacharacters can be allowed in anything that ends up on that line.
export const ABSOLUTE_PATH_PATTERN = /^\/[A-Za-z0-9._/+-]{0,4095}$/;
export const CLUSTER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const ClusterHostSchema = z
  .object({
    host: z.string().regex(HOST_PATTERN, 'must be a host name or IPv4 address (letters, digits, dots, dashes)'),
    slots: z.number().int().min(1).max(64), // GPUs (processes) on this host
    sshUser: z.string().regex(SSH_USER_PATTERN, 'must be a plain user name').nullable(),
    sshPort: z.number().int().min(1).max(65535),
    pythonPath: z.string().regex(ABSOLUTE_PATH_PATTERN, 'must be an absolute path without spaces or shell characters'),
  })
  .strict();

export const InterconnectSchema = z
  .object({
    kind: z.enum(['ethernet', 'infiniband', 'roce', 'nvlink-network', 'unknown']),
    // Nominal per-node bandwidth between nodes, per direction; null = unknown (the tuner then
    // assumes a conservative default and says so).
    gbitPerSecond: z.number().positive().max(100_000).nullable(),
  })
  .strict();

export const ClusterSchema = z
  .object({
    name: z.string().regex(CLUSTER_NAME_PATTERN, 'must be letters, digits, dot, dash or underscore'),
    hosts: z.array(ClusterHostSchema).min(1).max(256),
    masterAddr: z.string().regex(HOST_PATTERN, 'must be a host name or IPv4 address'),
    masterPort: z.number().int().min(1024).max(65535),
    identityFile: z.string().regex(ABSOLUTE_PATH_PATTERN, 'must be an absolute path').nullable().optional(),
    // Where the runner (resources/engine) sits on EVERY host, the same path everywhere: DeepSpeed's
    // pdsh launcher runs `cd <cwd>; <head python> -m deepspeed.launcher.launch … <script>` verbatim
    // on each host, so the path must exist there and hold no spaces (the app's own folder may).
    engineDir: z.string().regex(ABSOLUTE_PATH_PATTERN, 'must be an absolute path without spaces or shell characters').optional(),
    // Extra environment for every rank (e.g. NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME), passed through
    // DeepSpeed's .deepspeed_env mechanism; plain words only since pdsh pastes them into a shell line.
    env: z
      .record(
        z.string().regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'must be an upper-case variable name'),
        z.string().regex(/^[A-Za-z0-9._,:/=+-]{0,1024}$/, 'must be a plain value (no spaces or shell characters)'),
      )
      .optional(),
    interconnect: InterconnectSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.hosts.forEach((h, i) => {
      if (seen.has(h.host)) ctx.addIssue({ code: 'custom', path: ['hosts', i, 'host'], message: `'${h.host}' is listed twice` });
      seen.add(h.host);
    });
  });

// What detection over SSH found on one host (the engine probe's JSON, kept as reported).
export const HostDetectionSchema = z.object({
  host: z.string(),
  ok: z.boolean(),
  detectedAt: z.string(),
  detail: z.string(),
  probe: z.record(z.string(), z.unknown()).nullable(),
});

export const ClusterRecordSchema = z.object({
  cluster: ClusterSchema,
  savedAt: z.string(),
  detections: z.array(HostDetectionSchema),
});

export const PreflightRowSchema = z.object({
  host: z.string(),
  check: z.enum(['ssh', 'python', 'torch', 'deepspeed', 'runner', 'launcher', 'hostfile']),
  ok: z.boolean(),
  detail: z.string(),
  fix: z.string().nullable(),
});

export const LaunchSchema = z.object({
  file: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  hostfileText: z.string(),
  hostfilePath: z.string(),
  sshConfigText: z.string(),
  sshConfigPath: z.string(),
  envFileText: z.string(),
  envFilePath: z.string(),
  cwd: z.string(),
  launcher: z.literal('pdsh'),
});

// What the tuner should consume for a multi-node plan.
export const ClusterAssumptionsSchema = z.object({
  nodes: z.number().int(),
  slotsPerNode: z.array(z.number().int()),
  totalRanks: z.number().int(),
  interNodeBytesPerSecond: z.number(),
  interNodeSource: z.enum(['configured', 'default']),
  interconnect: z.string(),
  note: z.string(),
});

export type Cluster = z.infer<typeof ClusterSchema>;
export type ClusterRecord = z.infer<typeof ClusterRecordSchema>;
export type HostDetection = z.infer<typeof HostDetectionSchema>;
export type PreflightRow = z.infer<typeof PreflightRowSchema>;
export type Launch = z.infer<typeof LaunchSchema>;
export type ClusterAssumptions = z.infer<typeof ClusterAssumptionsSchema>;

const ByName = z.object({ name: z.string().regex(CLUSTER_NAME_PATTERN) }).strict();

export const clusterRequests = {
  'cluster/list': { request: z.object({}).strict(), response: z.object({ clusters: z.array(ClusterRecordSchema) }) },
  'cluster/save': { request: ClusterSchema, response: ClusterRecordSchema },
  'cluster/delete': { request: ByName, response: z.object({ deleted: z.boolean() }) },
  'cluster/detect': { request: ByName, response: z.object({ hosts: z.array(HostDetectionSchema) }) },
  'cluster/preflight': { request: ByName, response: z.object({ ok: z.boolean(), rows: z.array(PreflightRowSchema) }) },
  'cluster/launch-preview': {
    request: z
      .object({ name: z.string().regex(CLUSTER_NAME_PATTERN), specPath: z.string().regex(ABSOLUTE_PATH_PATTERN).optional() })
      .strict(),
    response: LaunchSchema,
  },
  'cluster/assumptions': { request: ByName, response: ClusterAssumptionsSchema },
  /** Copies the app's runner into the cluster's engine folder on this machine (what the pre-flight's runner check asks for). */
  'cluster/stage': { request: ByName, response: z.object({ engineDir: z.string(), files: z.array(z.string()) }) },
} as const;

export const clusterEvents = {} as const;
