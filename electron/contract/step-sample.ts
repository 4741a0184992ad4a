// One training step as measured: the one shape behind the runner's `step` line (engine.ts
// StepMessageSchema), the stored sample (runs/get `samples`, the SQLite `samples` table) and the live
// `runs/progress` event — each of those is this shape extended, never a copy of its fields. Names follow
// the rule in docs/architecture.md ("Names of figures"): where, what, unit last.
import { z } from 'zod';

const bytes = z.number().nullable();

export const RunSampleSchema = z.object({
  step: z.number().int(),
  warmup: z.boolean(),
  stepSeconds: z.number(),
  tflopsPerGpu: z.number().nullable(),
  tokensPerSecond: z.number().nullable(),
  // null when the loss was NaN/inf (the parser maps bare NaN tokens to null)
  loss: z.number().nullable(),
  gpuAllocatedBytes: bytes,
  gpuReservedBytes: bytes,
  gpuPeakBytes: bytes,
  hostRssBytes: bytes,
});

export type RunSample = z.infer<typeof RunSampleSchema>;

const RUN_SAMPLE_KEYS = Object.keys(RunSampleSchema.shape) as (keyof RunSample)[];

/** The stored sample of anything that carries a step's fields (a runner `step` line, a progress
 *  event): its RunSample fields and nothing else. */
export function toRunSample(step: RunSample): RunSample {
  const out = {} as Record<keyof RunSample, unknown>;
  for (const k of RUN_SAMPLE_KEYS) out[k] = step[k];
  return out as RunSample;
}
