// RunDetail (history's record of one run) → ReportRun. The JSON documents in a RunDetail are
// `unknown` in the contract (their owners may add fields), so they are read field by field with
// type checks: a report of an old or partial run shows "—" instead of failing.
import { hasPrediction, type RunDetail } from '../../contract';
import { repeatStats } from '../history';
import type { ReportFigures, ReportMachine, ReportRun, ReportVersions, ReportWorkload, Spread } from './types';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const positive = (v: number | null): number | null => (v !== null && v > 0 ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

/** Median, min, max and count of the finite values: the history's repeat statistics, one engine. */
function spreadOf(values: readonly (number | null | undefined)[]): Spread | null {
  const s = repeatStats(values);
  return s ? { median: s.median, min: s.min, max: s.max, n: s.n } : null;
}

function statsSpread(v: unknown, n: number): Spread | null {
  const o = obj(v);
  const median = num(o?.median);
  if (!o || median === null) return null;
  return { median, min: num(o.min) ?? median, max: num(o.max) ?? median, n };
}

function parseMachine(v: unknown): ReportMachine | null {
  const m = obj(v);
  if (!m) return null;
  const os = obj(m.os);
  const cpu = obj(m.cpu);
  const memory = obj(m.memory);
  const superchip = obj(m.superchip);
  const gpus = (Array.isArray(m.gpus) ? m.gpus : []).map(obj).filter((g): g is Obj => g !== null);
  return {
    hostname: str(m.hostname) ?? 'unknown host',
    detectedAt: str(m.detectedAt),
    os: { distro: str(os?.distro) ?? '', release: str(os?.release) ?? '', kernel: str(os?.kernel) ?? '', arch: str(os?.arch) ?? '' },
    cpu: {
      model: str(cpu?.model) ?? 'unknown CPU',
      sockets: num(cpu?.sockets),
      physicalCores: num(cpu?.physicalCores),
      logicalCores: num(cpu?.logicalCores),
      numaNodes: Array.isArray(cpu?.numaNodes) ? cpu.numaNodes.length : null,
      simd: Array.isArray(cpu?.simd) ? cpu.simd.filter((x): x is string => typeof x === 'string') : [],
    },
    memory: { totalBytes: num(memory?.totalBytes) },
    gpus: gpus.map((g, i) => ({
      index: num(g.index) ?? i,
      name: str(g.name) ?? 'GPU',
      memoryBytes: num(g.memoryBytes),
      driverVersion: str(g.driverVersion),
      cudaVersion: str(g.cudaVersion),
    })),
    gpuStatus: str(obj(m.gpuStatus)?.message),
    superchip: superchip && str(superchip.kind) ? { kind: str(superchip.kind)!, description: str(superchip.description) ?? '' } : null,
    raw: v,
  };
}

function workloadOf(detail: RunDetail): ReportWorkload {
  const config = obj(detail.config);
  const spec = obj(detail.spec);
  const model = obj(spec?.model);
  const hello = obj(detail.hello);
  const worldSize = num(config?.worldSize) ?? num(hello?.worldSize) ?? num(spec?.gpus) ?? 1;
  const nodes = num(spec?.nodes) ?? num(config?.nodes) ?? 1;
  const microBatch = num(config?.microBatch) ?? num(spec?.microBatch);
  const gradAccum = num(config?.gradAccum) ?? num(spec?.gradAccum);
  const globalBatch = num(config?.globalBatch) ?? (microBatch !== null && gradAccum !== null ? microBatch * gradAccum * worldSize : null);
  return {
    params: num(config?.params),
    layers: num(config?.layers) ?? num(model?.numLayers),
    hidden: num(config?.hidden) ?? num(model?.hiddenSize),
    seqLen: num(config?.seqLen) ?? num(spec?.seqLen),
    globalBatch,
    microBatch,
    gradAccum,
    worldSize,
    nodes,
    activationCheckpointing: bool(config?.activationCheckpointing) ?? bool(spec?.activationCheckpointing),
    precision: str(config?.precision) ?? str(spec?.precision),
  };
}

function versionsOf(detail: RunDetail, machine: ReportMachine | null): ReportVersions {
  const hello = obj(detail.hello);
  return {
    runner: str(hello?.runnerVersion),
    python: str(hello?.python),
    torch: str(hello?.torch),
    deepspeed: str(hello?.deepspeed),
    cuda: str(hello?.cuda) ?? machine?.gpus[0]?.cudaVersion ?? null,
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
    const scale = (sp: Spread | null, k: number): Spread | null => (sp ? { median: sp.median * k, min: sp.min * k, max: sp.max * k, n: sp.n } : null);
    return {
      measuredSteps: measured.length,
      stepSeconds: spreadOf(measured.map((m) => m.stepSeconds)),
      tflopsPerGpu,
      // Aggregate = per GPU × GPUs, the DeepSpeedExamples convention (docs/engine-facts.md).
      tflopsAggregate: scale(tflopsPerGpu, workload.worldSize),
      tokensPerSecond: spreadOf(measured.map((m) => m.tokensPerSecond)),
      peakGpuBytes: s.peakGpuBytes ?? peak(measured.map((m) => m.gpuPeakBytes ?? m.gpuReservedBytes)),
      peakHostBytes: s.peakHostBytes ?? peak(measured.map((m) => m.hostRssBytes)),
      source: 'samples',
    };
  }
  const result = obj(detail.result);
  if (result) {
    const n = num(result.measuredSteps) ?? 0;
    return {
      measuredSteps: n,
      stepSeconds: statsSpread(result.stepSeconds, n),
      tflopsPerGpu: statsSpread(result.tflopsPerGpu, n),
      tflopsAggregate: statsSpread(result.tflopsAggregate, n),
      tokensPerSecond: statsSpread(result.tokensPerSecond, n),
      peakGpuBytes: num(result.peakGpuBytes) ?? s.peakGpuBytes,
      peakHostBytes: num(result.peakHostBytes) ?? s.peakHostBytes,
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
    peakGpuBytes: s.peakGpuBytes,
    peakHostBytes: s.peakHostBytes,
    source: 'summary',
  };
}

/** The run's hosts as stored. An imported run's are whatever its file said: the bundle holds them
 *  to the cluster contract's HOST_PATTERN before any reaches a hostfile (bundle.ts refusedHosts). */
function hostsOf(detail: RunDetail): string[] {
  const spec = obj(detail.spec);
  const hosts = Array.isArray(spec?.hosts) ? spec.hosts : [];
  return hosts.map((h) => (typeof h === 'string' ? h : str(obj(h)?.hostname))).filter((h): h is string => !!h);
}

function launchArgvOf(detail: RunDetail): string[] | null {
  const config = obj(detail.config);
  const spec = obj(detail.spec);
  const argv = config?.launchArgv ?? spec?.launchArgv;
  return Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? (argv as string[]) : null;
}

/**
 * The predicted speed of a run, both null where there is none: a CPU smoke run's plan stores zeros,
 * and a step cannot take 0 s — no prediction, not a prediction of zero (issue 30.5; the CSV, the
 * table and the predicted-vs-measured chart all read it from here).
 */
function speedPredicted(predicted: Obj | null): { tflopsPerGpu: number | null; stepSeconds: number | null } {
  const stepSeconds = num(predicted?.stepSeconds) ?? num(obj(predicted?.throughput)?.stepSeconds);
  if (!hasPrediction({ stepSeconds })) return { tflopsPerGpu: null, stepSeconds: null };
  const tflopsPerGpu = num(predicted?.tflopsPerGpu) ?? num(obj(predicted?.throughput)?.tflopsPerGpu);
  return { tflopsPerGpu: tflopsPerGpu !== null && tflopsPerGpu > 0 ? tflopsPerGpu : null, stepSeconds };
}

export function toReportRun(detail: RunDetail): ReportRun {
  const machine = parseMachine(detail.snapshot);
  const workload = workloadOf(detail);
  const spec = obj(detail.spec);
  const config = obj(detail.config);
  // The tuner's prediction kept with the run (else the one in its spec): the Run page reads the same.
  const predicted = obj(detail.predicted) ?? obj(spec?.prediction);
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
      gpuPeakBytes: positive(num(predicted?.gpuPeakBytes)), // 0 B: no GPU to predict for (a CPU run)
      hostPeakBytes: num(predicted?.hostPeakBytes),
    },
    hosts: hostsOf(detail),
    launchArgv: launchArgvOf(detail),
  };
}
