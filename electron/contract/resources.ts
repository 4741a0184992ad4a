// The resource view of a run: what the machine did while the run ran — GPU, PCIe, CPU
// cores, memory, swap, disk — sampled by the app beside the runner, stored with the run, aligned
// with its steps, and read against the tuner's predicted terms. A lane that cannot be measured on
// this machine carries `available: false` and why, never zeros.
import { z } from 'zod';

const nullableNumber = z.number().nullable();

/** One GPU at one instant (nvidia-smi); null where the field was not reported ([N/A]). */
export const GpuReadingSchema = z.object({
  index: z.number().int().nonnegative(),
  /** utilization.gpu, percent of the sample period a kernel ran. */
  utilPct: nullableNumber,
  memUsedMiB: nullableNumber,
  powerW: nullableNumber,
  smClockMHz: nullableNumber,
  /** PCIe throughput (nvidia-smi dmon -s t), MB/s: rx is host → GPU, tx is GPU → host. */
  pcieRxMBps: nullableNumber,
  pcieTxMBps: nullableNumber,
});

/** One sample of the machine. `t` is milliseconds since the sampler started (the run's start). */
export const ResourceSampleSchema = z.object({
  t: z.number(),
  gpus: z.array(GpuReadingSchema),
  /** Busy percent of each logical CPU over the interval since the previous sample (/proc/stat). */
  cpuBusyPct: z.array(z.number()),
  memUsedBytes: nullableNumber,
  memTotalBytes: nullableNumber,
  swapUsedBytes: nullableNumber,
  /** Bytes/s read and written by the whole disks (NVMe, SCSI, virtio) over the interval. */
  diskReadBps: nullableNumber,
  diskWriteBps: nullableNumber,
  /** How many raw samples this one stands for (> 1 once a long run was downsampled). */
  merged: z.number().int().positive().optional(),
});

/** Whether a lane was measured on this machine, and why not when it was not. */
export const LaneStateSchema = z.object({ available: z.boolean(), reason: z.string().nullable() });
export const LANES = ['gpu', 'pcie', 'nvlink', 'cpu', 'memory', 'disk'] as const;
export const LaneAvailabilitySchema = z.object(
  Object.fromEntries(LANES.map((l) => [l, LaneStateSchema])) as Record<(typeof LANES)[number], typeof LaneStateSchema>,
);

/** Where a runner step ended, in the sampler's clock (ms since it started). */
export const StepMarkSchema = z.object({ step: z.number().int(), warmup: z.boolean(), endT: z.number(), seconds: z.number() });

export const ResourceRecordSchema = z.object({
  /** When sampling started (ISO instant) and the interval asked for. */
  startedAt: z.string(),
  intervalMs: z.number().positive(),
  availability: LaneAvailabilitySchema,
  samples: z.array(ResourceSampleSchema),
  steps: z.array(StepMarkSchema),
  /** Samples not taken because the previous one had not finished (a sampler that fell behind). */
  dropped: z.number().int().nonnegative(),
  /** Samples merged pairwise to keep the record bounded (0: every sample is as taken). */
  downsampled: z.number().int().nonnegative(),
  /** PCIe link rate per direction the throughput is read against (GB/s, nominal from gen × width), per GPU index. */
  pcieLinkGBps: z.record(z.string(), z.number()).optional(),
});

/** What the lanes say over one window (a measured step, or all measured steps). */
export const LaneReadingSchema = z.object({
  label: z.string(),
  fromT: z.number(),
  toT: z.number(),
  samples: z.number().int(),
  gpuBusyPct: nullableNumber,
  gpuMemMaxMiB: nullableNumber,
  gpuPowerW: nullableNumber,
  pcieGBps: nullableNumber, // mean rx + tx per GPU
  pciePeakGBps: nullableNumber,
  pcieLinkGBps: nullableNumber,
  /** Share of the window the link ran at half its nominal rate or more (either direction). */
  pcieBusyShare: nullableNumber,
  coresBusyPeak: nullableNumber, // logical CPUs at ≥ 90% in the busiest sample
  coresBusySeconds: nullableNumber, // seconds with at least one core at ≥ 90%
  busyCores: z.string().nullable(), // the cores at ≥ 50% on average, as ranges ("0-11,64")
  memUsedMaxBytes: nullableNumber,
  swapUsedMaxBytes: nullableNumber,
  diskReadBps: nullableNumber,
  diskWriteBps: nullableNumber,
  /** The lanes read as one sentence ("GPU busy 46%, PCIe 52 GB/s of 63 for 38% of the step, …"). */
  text: z.string(),
});

export const PredictedTermSchema = z.object({
  term: z.string(),
  seconds: z.number(),
  /** The lane that measures what this term models, and what it said over the measured steps. */
  lane: z.string(),
  measured: z.string(),
});

export const ResourceAttributionSchema = z.object({
  overall: LaneReadingSchema.nullable(),
  steps: z.array(LaneReadingSchema),
  predicted: z.object({ stepSeconds: nullableNumber, terms: z.array(PredictedTermSchema), note: z.string().nullable() }),
  measuredStepSeconds: nullableNumber,
  /** Lanes that could not be measured, as sentences ("PCIe: not available: …"). */
  unavailable: z.array(z.string()),
});

export const RunResourcesSchema = z.object({
  runId: z.string(),
  record: ResourceRecordSchema.nullable(),
  /** Why there is no record (a run from before sampling, an imported run, sampling off). */
  missing: z.string().nullable(),
  attribution: ResourceAttributionSchema.nullable(),
});

/** The live event: the newest sample of the run now running (about once a second). */
export const ResourceLiveEventSchema = z.object({
  sweepId: z.string(),
  runId: z.string(),
  sample: ResourceSampleSchema,
  availability: LaneAvailabilitySchema,
  pcieLinkGBps: z.record(z.string(), z.number()).optional(),
});

export type GpuReading = z.infer<typeof GpuReadingSchema>;
export type ResourceSample = z.infer<typeof ResourceSampleSchema>;
export type LaneState = z.infer<typeof LaneStateSchema>;
export type Lane = (typeof LANES)[number];
export type LaneAvailability = z.infer<typeof LaneAvailabilitySchema>;
export type StepMark = z.infer<typeof StepMarkSchema>;
export type ResourceRecord = z.infer<typeof ResourceRecordSchema>;
export type LaneReading = z.infer<typeof LaneReadingSchema>;
export type PredictedTerm = z.infer<typeof PredictedTermSchema>;
export type ResourceAttribution = z.infer<typeof ResourceAttributionSchema>;
export type RunResources = z.infer<typeof RunResourcesSchema>;
export type ResourceLiveEvent = z.infer<typeof ResourceLiveEventSchema>;

export const resourcesRequests = {
  'runs/resources': {
    request: z.object({ id: z.string() }).strict(),
    response: RunResourcesSchema,
  },
} as const;

export const resourcesEvents = {
  'runs/resources-live': ResourceLiveEventSchema,
} as const;
