// Host measurement service: runs the native measurements (CPU Adam sweep, triad bandwidth,
// host<->GPU copies) within a time budget, cancellable, reporting progress; turns them into
// the contract's Measurement (with the recommended cpuadam_cores_perc) and stores the latest
// in <dataDir>/measurements.json for the tuner. torch's own CPU AdamW (FSDP2 offload's step) is
// measured by a probe the caller hands in: it runs in the engine environment, which this layer
// does not know.
import os from 'node:os';
import { ApiError, type MeasureKind, type MeasureProgress, type Measurement, type TorchAdam } from '../../../contract';
import { recommendCoresPerc, recommendWorkerThreads } from './knee';
import { loadNative, NATIVE_NOT_BUILT, type NativeAddon } from './native';
import { ALL_KINDS, planMeasurement } from './plan';
import { usedMeasurement } from './choice';
import { saveMeasurement } from './store';

/** Measures torch's CPU AdamW rates (plain, foreach, fused) on one tensor of `params` elements at `threads`
 *  threads; rejects with an Error whose message says why it could not, in words. */
export type TorchAdamProbe = (input: { params: number; threads: number; timeoutMs: number; signal: AbortSignal }) => Promise<TorchAdam>;

/** Why a measurement has no torch AdamW figure when nobody handed in a probe. */
export const NO_TORCH_ADAM_PROBE =
  'not measured: no engine environment to run torch in (the app’s Setup creates it, or: bash scripts/setup-engine-venv.sh)';

/** Why a host without a GPU has no host↔GPU copy figure, in words. */
export const NO_GPU_COPIES = 'no GPU on this machine, so there are no host↔GPU copies to measure';

export {
  loadLatestMeasurement,
  loadMeasurementFor,
  loadMeasurementHistory,
  saveMeasurement,
  measurementsPath,
  measurementFromFile,
  machineMeasurements,
  pickMeasurement,
} from './store';
export { usedMeasurement, type UsedMeasurement } from './choice';
export { recommendCoresPerc, recommendThreads, recommendWorkerThreads, KNEE_FRACTION } from './knee';
export { planMeasurement, DEFAULT_BUDGET_SECONDS } from './plan';
export { measurementSpread, DISAGREE_FRACTION } from './spread';
export { loadNative, NATIVE_NOT_BUILT } from './native';
export type { NativeAddon } from './native';

export interface MeasureHostOptions {
  budgetSeconds?: number;
  include?: readonly MeasureKind[];
  onProgress?: (progress: MeasureProgress) => void;
  signal?: AbortSignal;
  /** Extra places to find libcudart (files or folders), e.g. torch's nvidia/<package>/lib folders in the engine venv. */
  cudaLibraryPaths?: string[];
  /** Where to store the result; omitted = not stored. */
  dataDir?: string;
  /**
   * The host has no GPU (detection found none): the host↔GPU copy test is skipped and said so in
   * words, instead of the CUDA runtime's own complaint (a libcudart path, "driver version is insufficient").
   */
  noGpu?: boolean;
  /** torch's CPU AdamW rates, measured in the engine environment (backend/handlers/measure.ts hands it in). */
  torchAdamProbe?: TorchAdamProbe;
  /** The machineId of the host being measured (this one), recorded with the result. */
  machineId?: string | null;
  /** Overrides for tests and benchmarks. */
  adamParams?: number;
  threadCounts?: number[];
}

/** Fails with 'native_unavailable' (and the build hint) when the addon is not built. */
export function requireNative(): NativeAddon {
  const load = loadNative();
  if (!load.ok) throw new ApiError('native_unavailable', load.reason);
  return load.addon;
}

export function nativeAvailable(): { available: boolean; reason: string | null } {
  const load = loadNative();
  return load.ok ? { available: true, reason: null } : { available: false, reason: load.reason ?? NATIVE_NOT_BUILT };
}

export async function measureHost(options: MeasureHostOptions = {}): Promise<Measurement> {
  const addon = requireNative();
  const started = Date.now();
  const asked = options.include ?? ALL_KINDS;
  const include = options.noGpu ? asked.filter((k) => k !== 'hostDevice') : asked;
  const plan = planMeasurement({
    budgetSeconds: options.budgetSeconds,
    include,
    freeMemoryBytes: os.freemem(),
    defaultSet: !options.include,
  });
  const token = new addon.CancelToken();
  // The torch probe is a child process: it stops on this controller, which a cancel also aborts.
  const childStop = new AbortController();
  const onAbort = () => {
    token.cancel();
    childStop.abort();
  };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const total = plan.kinds.reduce((s, k) => s + plan.seconds[k], 0);
  let done = 0; // seconds of budget of the phases already finished
  const progressFor = (phase: MeasureKind) => (fraction: number, message: string) => {
    const overall = total > 0 ? (done + plan.seconds[phase] * Math.min(1, Math.max(0, fraction))) / total : 1;
    options.onProgress?.({ phase, fraction: Math.min(1, overall), message });
  };
  const checkCancelled = () => {
    if (token.cancelled) throw new ApiError('cancelled', 'Measurement cancelled.');
  };
  const threadCounts = options.threadCounts ?? addon.defaultThreadCounts(addon.logicalCores);

  const result: Measurement = {
    cpuAdam: [],
    recommendedCoresPerc: null,
    recommendedThreads: null,
    simdPath: addon.bestSimdPath,
    logicalCores: addon.logicalCores,
    memoryBandwidthBytesPerSecond: null,
    hostDevice: null,
    hostDeviceReason: options.noGpu && asked.includes('hostDevice') ? NO_GPU_COPIES : 'not measured (not requested)',
    torchAdam: null,
    torchAdamReason: plan.leftOut.torchAdam ?? 'not measured (not requested)',
    measuredAt: new Date(started).toISOString(),
    durationMs: 0,
    machineId: options.machineId ?? null,
  };
  try {
    if (plan.kinds.includes('cpuAdam')) {
      const sweep = await addon.cpuAdamSweep(
        // Up to 200 steps per thread count (the addon's default stops at 30, ~0.5 s on 16 fast cores):
        // the budget's slice, not the step cap, ends each point, so its median is not one burst.
        { params: options.adamParams ?? plan.adamParams, threadCounts, budgetSeconds: plan.seconds.cpuAdam, maxSteps: 200 },
        token,
        progressFor('cpuAdam'),
      );
      checkCancelled();
      if (sweep.status.error) throw new ApiError('measure_failed', `CPU Adam: ${sweep.status.error}`);
      result.cpuAdam = sweep.points.map((p) => ({ threads: p.threads, paramsPerSecond: p.paramsPerSecond }));
      result.cpuAdamParams = sweep.params;
      result.recommendedThreads = recommendWorkerThreads(result.cpuAdam, addon.logicalCores);
      result.recommendedCoresPerc = recommendCoresPerc(result.cpuAdam, addon.logicalCores);
      done += plan.seconds.cpuAdam;
    }
    if (plan.kinds.includes('memoryBandwidth')) {
      const n = addon.logicalCores;
      const triad = await addon.memoryBandwidth(
        // All cores, and half of them: on some hosts fewer streams share the memory bus better.
        { elements: plan.triadElements, threadCounts: n >= 4 ? [n, Math.floor(n / 2)] : [n], budgetSeconds: plan.seconds.memoryBandwidth },
        token,
        progressFor('memoryBandwidth'),
      );
      checkCancelled();
      if (triad.status.error) throw new ApiError('measure_failed', `memory bandwidth: ${triad.status.error}`);
      result.memoryBandwidthBytesPerSecond = triad.points.length ? triad.bytesPerSecond : null;
      if (triad.points.length)
        result.memoryBandwidthByThreads = triad.points
          .map((p) => ({ threads: p.threads, bytesPerSecond: p.bytesPerSecond }))
          .sort((a, b) => a.threads - b.threads);
      done += plan.seconds.memoryBandwidth;
    }
    if (plan.kinds.includes('hostDevice')) {
      const copy = await addon.hostDeviceCopy(
        { bytes: plan.copyBytes, budgetSeconds: plan.seconds.hostDevice, libraryPaths: options.cudaLibraryPaths ?? [] },
        token,
        progressFor('hostDevice'),
      );
      checkCancelled();
      if (copy.available) {
        result.hostDevice = { pinned: copy.pinned, pageable: copy.pageable, deviceName: copy.deviceName, bytesPerCopy: copy.bytes };
        result.hostDeviceReason = null;
      } else {
        result.hostDeviceReason = copy.reason ?? 'host-device copy not measured';
        progressFor('hostDevice')(1, `host-device copy: ${result.hostDeviceReason}`); // the addon said nothing
      }
      done += plan.seconds.hostDevice;
    }
    if (plan.kinds.includes('torchAdam')) {
      const report = progressFor('torchAdam');
      if (!options.torchAdamProbe) result.torchAdamReason = NO_TORCH_ADAM_PROBE;
      else {
        // At the native sweep's top thread count, so the tuner reads torch's rate against DeepSpeed's at one point.
        const threads = result.cpuAdam.length ? Math.max(...result.cpuAdam.map((p) => p.threads)) : addon.logicalCores;
        report(0, `torch AdamW: loading torch, then ${(plan.torchAdamParams / 2 ** 20).toFixed(0)}M parameters at ${threads} threads`);
        try {
          // Its share of the budget, and time to load torch: one process, it cannot stop half-way with a figure.
          const timeoutMs = Math.round(Math.max(plan.seconds.torchAdam, 30) * 1000);
          result.torchAdam = await options.torchAdamProbe({ params: plan.torchAdamParams, threads, timeoutMs, signal: childStop.signal });
          result.torchAdamReason = null;
        } catch (error) {
          checkCancelled();
          result.torchAdamReason = `not measured: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      checkCancelled();
      report(1, result.torchAdam ? 'torch AdamW measured' : `torch AdamW: ${result.torchAdamReason}`);
      done += plan.seconds.torchAdam;
    }
    // Skipped for want of a GPU: the phase still reports, in words, so the progress says why.
    if (options.noGpu && asked.includes('hostDevice'))
      options.onProgress?.({ phase: 'hostDevice', fraction: 1, message: `host↔GPU copies: ${NO_GPU_COPIES}` });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  // from the measurement plans use: a newest one flagged as taken on a busy machine passes on no figure
  if (options.dataDir && options.machineId) carryUnasked(result, asked, usedMeasurement(options.dataDir, options.machineId, true).used);
  result.durationMs = Date.now() - started;
  options.onProgress?.({ phase: 'done', fraction: 1, message: `measured in ${(result.durationMs / 1000).toFixed(1)} s` });
  if (options.dataDir) saveMeasurement(options.dataDir, result);
  return result;
}

/**
 * A measurement of some kinds only (`--only torchAdam`) becomes this machine's latest, which the tuner reads:
 * without this it would lose the CPU Adam sweep the last full measurement found and plan with catalogue
 * defaults. Kinds not asked for keep the previous figures, and `carried` says from when.
 */
export function carryUnasked(result: Measurement, asked: readonly MeasureKind[], previous: Measurement | null): void {
  if (!previous) return;
  const carried: NonNullable<Measurement['carried']> = {};
  const from = (kind: MeasureKind) => (carried[kind] = previous.carried?.[kind] ?? previous.measuredAt);
  if (!asked.includes('cpuAdam') && previous.cpuAdam.length) {
    result.cpuAdam = previous.cpuAdam;
    result.cpuAdamParams = previous.cpuAdamParams;
    result.recommendedCoresPerc = previous.recommendedCoresPerc;
    result.recommendedThreads = previous.recommendedThreads;
    from('cpuAdam');
  }
  if (!asked.includes('memoryBandwidth') && previous.memoryBandwidthBytesPerSecond !== null) {
    result.memoryBandwidthBytesPerSecond = previous.memoryBandwidthBytesPerSecond;
    result.memoryBandwidthByThreads = previous.memoryBandwidthByThreads;
    from('memoryBandwidth');
  }
  if (!asked.includes('hostDevice') && previous.hostDevice) {
    result.hostDevice = previous.hostDevice;
    result.hostDeviceReason = null;
    from('hostDevice');
  }
  if (!asked.includes('torchAdam') && previous.torchAdam) {
    result.torchAdam = previous.torchAdam;
    result.torchAdamReason = null;
    from('torchAdam');
  }
  if (Object.keys(carried).length) result.carried = carried;
}
