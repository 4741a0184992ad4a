// Run records as stored in history and listed by `runs/list`.
import { z } from 'zod';

export const RunStatusSchema = z.enum([
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
]);

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

// ---- channels of the history domain ----
export const runsRequests = {
  'runs/list': {
    request: RunFilterSchema,
    response: z.object({ runs: z.array(RunSummarySchema), total: z.number().int() }),
  },
} as const;

export const runsEvents = {} as const;
