// RunDetail (history's record of one run) → ReportRun. The documents in a RunDetail are typed,
// lenient readings (contract stored.ts: parsed once where history reads them), so a field an old or
// partial run lacks is simply absent here and the report shows "—" instead of failing.
import fs from 'node:fs';
import { hasPrediction, predictedGpuPeakBytes, type RunDetail, type StoredMachine, type StoredPrediction } from '../../contract';
import { ranWorkloadOf } from '../../contract';
import { repeatStats } from '../history';
import type { ReportFigures, ReportMachine, ReportRun, ReportVersions, ReportWorkload, Spread } from './types';

/** A stored text field; empty reads as absent. */
const text = (v: string | undefined): string | null => (v ? v : null);

/** Median, min, max and count of the finite values: the history's repeat statistics, one engine. */
function spreadOf(values: readonly (number | null | undefined)[]): Spread | null {
  const s = repeatStats(values);
  return s ? { median: s.median, min: s.min, max: s.max, n: s.n } : null;
}

function statsSpread(v: { median?: number; min?: number; max?: number } | null | undefined, n: number): Spread | null {
  if (v?.median === undefined) return null;
  return { median: v.median, min: v.min ?? v.median, max: v.max ?? v.median, n };
}

function parseMachine(m: StoredMachine | null): ReportMachine | null {
  if (!m) return null;
  const { os, cpu, memory, superchip } = m;
  return {
    hostname: text(m.hostname) ?? 'unknown host',
    detectedAt: text(m.detectedAt),
    os: { distro: os?.distro ?? '', release: os?.release ?? '', kernel: os?.kernel ?? '', arch: os?.arch ?? '' },
    cpu: {
      model: text(cpu?.model) ?? 'unknown CPU',
      sockets: cpu?.sockets ?? null,
      physicalCores: cpu?.physicalCores ?? null,
      logicalCores: cpu?.logicalCores ?? null,
      numaNodes: cpu?.numaNodes?.length ?? null,
      simd: cpu?.simd ?? [],
    },
    memory: { totalBytes: memory?.totalBytes ?? null },
    gpus: (m.gpus ?? []).map((g, i) => ({
      index: g.index ?? i,
      name: text(g.name) ?? 'GPU',
      memoryBytes: g.memoryBytes ?? null,
      driverVersion: text(g.driverVersion ?? undefined),
      cudaVersion: text(g.cudaVersion ?? undefined),
    })),
    gpuStatus: text(m.gpuStatus?.message),
    superchip: superchip?.kind ? { kind: superchip.kind, description: superchip.description ?? '' } : null,
    raw: m,
  };
}

/** The run's workload as the report's formula reads it (exported for its test). */
export function workloadOf(detail: RunDetail): ReportWorkload {
  // One precedence for every reader of a stored run (contract ran-workload.ts): the spec first, so a
  // two-node run without a config line counts both nodes' GPUs.
  // N of the TFLOPS formula is `params`: what a token computes — a Mixture-of-Experts model's active
  // parameters (its spec's probe table), as the runner's measured TFLOPS count them; else the total.
  return ranWorkloadOf(detail);
}

function versionsOf(detail: RunDetail, machine: ReportMachine | null): ReportVersions {
  const hello = detail.hello;
  return {
    runner: text(hello?.runnerVersion),
    python: text(hello?.python),
    torch: text(hello?.torch),
    deepspeed: text(hello?.deepspeed ?? undefined),
    cuda: text(hello?.cuda ?? undefined) ?? machine?.gpus[0]?.cudaVersion ?? null,
    driver: machine?.gpus[0]?.driverVersion ?? null,
  };
}

function figuresOf(detail: RunDetail, workload: ReportWorkload): ReportFigures {
  const measured = detail.samples.filter((s) => !s.warmup);
  const s = detail.summary;
  const peak = (values: (number | null)[]) => {
    const xs = values.filter((v): v is number => v !== null);
    // A loop, not Math.max(...xs): a run with hundreds of thousands of samples overflows the call stack.
    return xs.length ? xs.reduce((a, b) => (b > a ? b : a), -Infinity) : null;
  };
  if (measured.length > 0) {
    const tflopsPerGpu = spreadOf(measured.map((m) => m.tflopsPerGpu));
    const scale = (sp: Spread | null, k: number): Spread | null =>
      sp ? { median: sp.median * k, min: sp.min * k, max: sp.max * k, n: sp.n } : null;
    return {
      measuredSteps: measured.length,
      stepSeconds: spreadOf(measured.map((m) => m.stepSeconds)),
      tflopsPerGpu,
      // Aggregate = per GPU × GPUs, the DeepSpeedExamples convention (docs/engine-facts.md).
      tflopsAggregate: scale(tflopsPerGpu, workload.worldSize),
      tokensPerSecond: spreadOf(measured.map((m) => m.tokensPerSecond)),
      gpuPeakBytes: s.peakGpuBytes ?? peak(measured.map((m) => m.gpuPeakBytes ?? m.gpuReservedBytes)),
      hostPeakBytes: s.peakHostBytes ?? peak(measured.map((m) => m.hostRssBytes)),
      source: 'samples',
    };
  }
  const result = detail.result;
  if (result) {
    const n = result.measuredSteps ?? 0;
    return {
      measuredSteps: n,
      stepSeconds: statsSpread(result.stepSeconds, n),
      tflopsPerGpu: statsSpread(result.tflopsPerGpu, n),
      tflopsAggregate: statsSpread(result.tflopsAggregate, n),
      tokensPerSecond: statsSpread(result.tokensPerSecond, n),
      gpuPeakBytes: result.peakGpuBytes ?? s.peakGpuBytes,
      hostPeakBytes: result.peakHostBytes ?? s.peakHostBytes,
      source: 'result',
    };
  }
  const one = (v: number | null): Spread | null => (v === null ? null : { median: v, min: v, max: v, n: 1 });
  return {
    measuredSteps: 0,
    stepSeconds: one(s.stepSeconds),
    tflopsPerGpu: one(s.tflopsPerGpu),
    tflopsAggregate: s.tflopsPerGpu === null ? null : one(s.tflopsPerGpu * workload.worldSize),
    tokensPerSecond: one(s.tokensPerSecond),
    gpuPeakBytes: s.peakGpuBytes,
    hostPeakBytes: s.peakHostBytes,
    source: 'summary',
  };
}

/** The run's hosts as stored. An imported run's are whatever its file said: the bundle holds them
 *  to the cluster contract's HOST_PATTERN before any reaches a hostfile (bundle.ts refusedHosts). */
function hostsOf(detail: RunDetail): string[] {
  return (detail.spec?.hosts ?? []).map((h) => (typeof h === 'string' ? h : text(h.hostname))).filter((h): h is string => !!h);
}

function launchArgvOf(detail: RunDetail): string[] | null {
  return detail.config?.launchArgv ?? detail.spec?.launchArgv ?? null;
}

/**
 * The predicted speed of a run, both null where there is none: a CPU smoke run's plan stores zeros,
 * and a step cannot take 0 s — no prediction, not a prediction of zero (issue 30.5; the CSV, the
 * table and the predicted-vs-measured chart all read it from here).
 */
function speedPredicted(predicted: StoredPrediction | null): { tflopsPerGpu: number | null; stepSeconds: number | null } {
  const stepSeconds = predicted?.stepSeconds ?? predicted?.throughput?.stepSeconds ?? null;
  if (!hasPrediction({ stepSeconds })) return { tflopsPerGpu: null, stepSeconds: null };
  const tflopsPerGpu = predicted?.tflopsPerGpu ?? predicted?.throughput?.tflopsPerGpu ?? null;
  return { tflopsPerGpu: tflopsPerGpu !== null && tflopsPerGpu > 0 ? tflopsPerGpu : null, stepSeconds };
}

export function toReportRun(detail: RunDetail): ReportRun {
  const machine = parseMachine(detail.snapshot);
  const workload = workloadOf(detail);
  const { spec, config } = detail;
  // The tuner's prediction kept with the run (else the one in its spec): the Run page reads the same.
  const predicted = detail.predicted ?? spec?.prediction ?? null;
  const s = detail.summary;
  return {
    summary: s,
    label: `${s.strategy}${s.repeatIndex > 0 ? ` · repeat ${s.repeatIndex + 1}` : ''}`,
    samples: detail.samples,
    dsConfig: spec?.dsConfig ?? config?.effectiveConfig ?? null,
    spec: detail.spec ?? null,
    machine,
    versions: versionsOf(detail, machine),
    workload,
    figures: figuresOf(detail, workload),
    predicted: {
      ...speedPredicted(predicted),
      // none for a CPU run, whatever GPU figure its plan computed (contract predictedGpuPeakBytes: the run page's answer)
      gpuPeakBytes: predictedGpuPeakBytes({ stepSeconds: speedPredicted(predicted).stepSeconds, gpuPeakBytes: predicted?.gpuPeakBytes }),
      hostPeakBytes: predicted?.hostPeakBytes ?? null,
    },
    hosts: hostsOf(detail),
    launchArgv: launchArgvOf(detail),
    job: jobOf(detail),
  };
}

/** The run's Slurm job and the script it was submitted as (read from the shared work folder, where it stays). */
function jobOf(detail: RunDetail): ReportRun['job'] {
  const job = detail.job;
  if (!job) return null;
  let script: string | null = null;
  try {
    script = fs.readFileSync(job.scriptPath, 'utf8').slice(0, 256 * 1024);
  } catch {
    // the work folder was cleaned: the report still names the job
  }
  return { target: job.target, partition: job.partition, jobId: job.jobId, nodes: job.nodes, state: job.state, script };
}
