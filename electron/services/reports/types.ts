// The report's own view of a run: everything every format needs, normalised once from the
// history's RunDetail so the HTML, CSV and bundle writers never re-derive a figure differently.
import type { RanWorkload, RunSample, RunSummary } from '../../contract';

/** The part of a system snapshot (contract Machine) a report shows, read leniently so snapshots
 *  from older or newer schema versions still show; `raw` is the stored document, for diffs. */
export interface ReportMachine {
  hostname: string;
  detectedAt: string | null;
  os: { distro: string; release: string; kernel: string; arch: string };
  cpu: {
    model: string;
    sockets: number | null;
    physicalCores: number | null;
    logicalCores: number | null;
    numaNodes: number | null;
    simd: string[];
  };
  memory: { totalBytes: number | null };
  gpus: { index: number; name: string; memoryBytes: number | null; driverVersion: string | null; cudaVersion: string | null }[];
  gpuStatus: string | null;
  superchip: { kind: string; description: string } | null;
  raw: unknown;
}

/** Median, min and max of one figure over a set of values (measured steps, or repeats). */
export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** What the run ran, as every reader of a stored run reads it (contract ran-workload.ts): N, L, h and s
 *  of the TFLOPS formula are `params`, `layers`, `hidden`, `seqLen`; `gpus` is per node, `worldSize` all. */
export type ReportWorkload = RanWorkload;

export interface ReportVersions {
  runner: string | null;
  python: string | null;
  torch: string | null;
  deepspeed: string | null;
  cuda: string | null;
  driver: string | null;
}

export interface ReportFigures {
  measuredSteps: number;
  stepSeconds: Spread | null;
  tflopsPerGpu: Spread | null;
  tflopsAggregate: Spread | null;
  tokensPerSecond: Spread | null;
  /** The run's peaks: the summary's peakGpuBytes / peakHostBytes (names kept there: docs/architecture.md, "Names of figures"). */
  gpuPeakBytes: number | null;
  hostPeakBytes: number | null;
  /** Where the figures came from: per-step samples, the runner's result, or the summary row only. */
  source: 'samples' | 'result' | 'summary';
}

export interface ReportRun {
  summary: RunSummary;
  /** Short human name: "superoffload · repeat 2". */
  label: string;
  samples: RunSample[];
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- null is the documented 'none recorded'
  dsConfig: unknown | null;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- null is the documented 'none recorded'
  spec: unknown | null;
  machine: ReportMachine | null;
  versions: ReportVersions;
  workload: ReportWorkload;
  figures: ReportFigures;
  /** The tuner's prediction kept with the run (GPU peak per GPU, host peak per node). */
  predicted: { tflopsPerGpu: number | null; stepSeconds: number | null; gpuPeakBytes: number | null; hostPeakBytes: number | null };
  /** Hostnames of a multi-node run (for the bundle's hostfile); empty on one node. */
  hosts: string[];
  /** The runner's launch argv as stored, when the engine recorded it. */
  launchArgv: string[] | null;
  /** The Slurm job the run ran as, with its sbatch script as submitted (null when the file is gone). */
  job: { target: string; partition: string; jobId: string; nodes: string[]; state: string; script: string | null } | null;
}
