// Host measurements: the CPU Adam step rate by thread count, memory bandwidth and host<->GPU
// copy bandwidth, measured by the native addon; and torch's own CPU AdamW rate (FSDP2 offload's
// optimizer step), measured in the engine environment. What `hardware/measure` returns, what
// `measure --json` prints, and what is kept in <dataDir>/measurements.json for the tuner.
import { z } from 'zod';
import { Empty } from './common';

export const MeasureKindSchema = z.enum(['cpuAdam', 'memoryBandwidth', 'hostDevice', 'torchAdam']);

export const MeasureRequestSchema = z
  .object({
    // Whole-measurement budget; each phase gets a share and stops on time.
    budgetSeconds: z.number().positive().max(3600).optional(),
    include: z.array(MeasureKindSchema).min(1).optional(),
  })
  .strict();

export const CpuAdamPointSchema = z.object({
  threads: z.number().int().positive(),
  paramsPerSecond: z.number().nonnegative(),
});

export const CopyPairSchema = z.object({
  h2dBytesPerSecond: z.number().nonnegative(),
  d2hBytesPerSecond: z.number().nonnegative(),
});

export const HostDeviceSchema = z.object({
  pinned: CopyPairSchema,
  pageable: CopyPairSchema,
  deviceName: z.string().nullable().optional(),
  bytesPerCopy: z.number().optional(),
});

/** torch.optim.AdamW stepping fp32 CPU tensors (resources/engine/torch_adam_rate.py): the rate FSDP2's CPU
 *  offload steps at, which is not DeepSpeedCPUAdam's. Per implementation, at one thread count, on one tensor
 *  of `params` elements (past the last-level cache, like the native sweep's). */
export const TorchAdamSchema = z.object({
  threads: z.number().int().positive(),
  params: z.number().int().positive(),
  /** Params per second by implementation: plain (torch's per-tensor loop), foreach, fused. */
  paramsPerSecond: z.object({
    plain: z.number().positive().optional(),
    foreach: z.number().positive().optional(),
    fused: z.number().positive().optional(),
  }),
  torch: z.string(),
  python: z.string(),
});

/** One figure of a measurement beside this machine's earlier ones (services/hardware/measure/spread.ts). */
export const MeasurementSpreadSchema = z.object({
  figure: z.enum(['CPU Adam', 'memory bandwidth (triad)']),
  latest: z.number(),
  earlier: z.array(z.number()),
  /** Far from the earlier measurements' median: the machine was probably busy. */
  disagrees: z.boolean(),
  /** Its distance from the median of all (this one included), as a signed share: -0.49 is 49% below. */
  off: z.number().optional(),
  words: z.string(),
});
export type MeasurementSpread = z.infer<typeof MeasurementSpreadSchema>;

export const MeasurementSchema = z.object({
  cpuAdam: z.array(CpuAdamPointSchema), // empty when not measured
  recommendedCoresPerc: z.number().min(0).max(1).nullable(), // DeepSpeed's cpuadam_cores_perc
  recommendedThreads: z.number().int().positive().nullable().optional(),
  simdPath: z.enum(['avx512', 'avx2', 'neon', 'scalar']),
  logicalCores: z.number().int().positive().optional(),
  cpuAdamParams: z.number().int().nonnegative().optional(), // params per step in the sweep
  memoryBandwidthBytesPerSecond: z.number().nonnegative().nullable(), // triad, null when not measured
  /** The triad at each thread count measured (all cores, half of them): the copy rate a strategy's CPU
   *  threads draw (SuperOffload's 8 Adam threads of 16 drew 101 of 116 GB/s on the H200 host). */
  memoryBandwidthByThreads: z
    .array(z.object({ threads: z.number().int().positive(), bytesPerSecond: z.number().nonnegative() }))
    .optional(),
  hostDevice: HostDeviceSchema.nullable(),
  hostDeviceReason: z.string().nullable(), // why hostDevice is null
  /** torch's CPU AdamW rates; absent or null when not measured (torchAdamReason says why). */
  torchAdam: TorchAdamSchema.nullable().optional(),
  torchAdamReason: z.string().nullable().optional(),
  measuredAt: z.string(),
  durationMs: z.number().nonnegative(),
  /** Figures of kinds this measurement did not ask for (`--only`), carried from this machine's previous
   *  measurement so the tuner keeps them: kind → when they were measured. Absent when nothing was carried. */
  carried: z.partialRecord(MeasureKindSchema, z.string()).optional(),
  /** The machine it was measured on (detect's machineId); absent in files written before it was recorded. */
  machineId: z.string().nullable().optional(),
  /** Its figures beside this machine's earlier measurements, where there are any (added when read; not stored). */
  spread: z.array(MeasurementSpreadSchema).optional(),
});

/**
 * Which of a machine's stored measurements its plans use (services/hardware/measure/choice.ts): the
 * one the user picked, else the newest that no figure flags as far from the machine's others.
 */
export const MeasurementChoiceSchema = z.object({
  machineId: z.string(),
  /** The measuredAt the user picked; null: none (the rule decides). */
  picked: z.string().nullable(),
  /** The measuredAt of the one plans use; null: none stored. */
  usedAt: z.string().nullable(),
  /** Which one plans use and why, in words (the Plan page's and `plan`'s host-figures note say the same). */
  words: z.string(),
  /** Newest first. */
  measurements: z.array(
    z.object({
      measuredAt: z.string(),
      durationMs: z.number().nonnegative(),
      cpuAdamParamsPerSecond: z.number().nullable(),
      memoryBandwidthBytesPerSecond: z.number().nullable(),
      /** The words of each figure far from the machine's other measurements; empty: it agrees. */
      flagged: z.array(z.string()),
    }),
  ),
});
export type MeasurementChoice = z.infer<typeof MeasurementChoiceSchema>;

export const MeasureProgressSchema = z.object({
  phase: z.enum(['cpuAdam', 'memoryBandwidth', 'hostDevice', 'torchAdam', 'done']),
  fraction: z.number().min(0).max(1), // of the whole measurement
  message: z.string(),
});

export type MeasureKind = z.infer<typeof MeasureKindSchema>;
export type CpuAdamPoint = z.infer<typeof CpuAdamPointSchema>;
export type TorchAdam = z.infer<typeof TorchAdamSchema>;
export type Measurement = z.infer<typeof MeasurementSchema>;
export type MeasureProgress = z.infer<typeof MeasureProgressSchema>;

// ---- channels of the measure domain ----
export const measureRequests = {
  'hardware/measure': { request: MeasureRequestSchema, response: MeasurementSchema },
  // Stops the measurement in flight; its `hardware/measure` then fails with code 'cancelled'.
  'hardware/measure-cancel': { request: Empty, response: z.object({ cancelled: z.boolean() }) },
  // The stored measurement of the machine shown (null: never measured), so the Hardware page shows
  // what Setup's Measure step or `measure` found instead of nothing.
  'hardware/measurement': { request: Empty, response: MeasurementSchema.nullable() },
  // The stored measurements of the machine shown and which of them its plans use (null: none stored).
  'hardware/measurements': { request: Empty, response: MeasurementChoiceSchema.nullable() },
  // Pick the measurement the machine's plans use, by its measuredAt; null: back to the rule.
  'hardware/measurement-use': { request: z.object({ measuredAt: z.string().nullable() }), response: MeasurementChoiceSchema },
} as const;

export const measureEvents = {
  'hardware/measure-progress': MeasureProgressSchema,
} as const;
