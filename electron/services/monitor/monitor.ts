// One run's resource monitor: started by the sweep when the run's runner starts, stopped when it
// ends. Every `intervalMs` it takes one sample (GPU readings the nvidia-smi children last printed,
// host figures from /proc) and keeps it in a bounded ring; step ends are marked in the same clock.
// It never blocks the run and never throws into it: a tick whose previous read is still pending
// is dropped (counted), and every failure becomes a lane's "not available: why".
import type { LaneAvailability, ResourceRecord, ResourceSample, StepMark } from '../../contract';
import { GpuSampler, type GpuSamplerOptions } from './gpu-sampler';
import { HostSampler } from './host-sampler';
import { SampleRing } from './ring';

export const DEFAULT_INTERVAL_MS = 500;

export interface MonitorOptions {
  intervalMs?: number;
  /** The machine snapshot of the sweep (contract Machine): its GPUs decide whether nvidia-smi is asked at all, their PCIe link the rate throughput is read against. */
  machine?: unknown;
  /** GPU sampler overrides (tests), e.g. another command to play a broken nvidia-smi. */
  gpu?: Partial<GpuSamplerOptions>;
  /** Copy nvidia-smi's raw output to `<prefix>.query.txt` / `<prefix>.dmon.txt`. */
  rawFilePrefix?: string | null;
  capacity?: number;
  /** The nvidia-smi indexes of the GPUs the run uses (others on the host are left out: a 1-GPU run on
   *  an 8-GPU host is not "12% busy"). Absent: every GPU. */
  gpuIndexes?: number[];
  procRoot?: string;
  /** Each sample as it is taken (the live view). An exception here is swallowed. */
  onSample?(sample: ResourceSample, availability: LaneAvailability): void;
}

export interface ResourceMonitor {
  /** The end of a runner step: `at` is when it ended (ms epoch; default now). */
  markStep(step: { step: number; warmup: boolean; stepSeconds: number }, at?: number): void;
  /** Stops sampling and returns the record (also after a failure: lanes say what failed). */
  stop(): ResourceRecord;
  readonly availability: LaneAvailability;
  readonly pcieLinkGBps: Record<string, number>;
}

interface MachineGpu {
  index?: unknown;
  vendor?: unknown;
  pcie?: { gen?: unknown; width?: unknown } | null;
}

const GT_PER_LANE: Record<number, number> = { 1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32, 6: 64 };

/** Nominal PCIe rate per direction in GB/s: transfers × encoding (8b/10b to gen 2, 128b/130b after) × lanes / 8. */
export function pcieNominalGBps(gen: number, width: number): number | null {
  const gt = GT_PER_LANE[gen];
  if (!gt || !(width > 0)) return null;
  const encoding = gen <= 2 ? 8 / 10 : gen === 6 ? 242 / 256 : 128 / 130;
  return (gt * encoding * width) / 8;
}

function machineGpus(machine: unknown): MachineGpu[] | null {
  const gpus = (machine as { gpus?: unknown } | null)?.gpus;
  return Array.isArray(gpus) ? (gpus as MachineGpu[]) : null;
}

/**
 * The GPUs a run of `gpus` per node uses on this host: CUDA_VISIBLE_DEVICES's first `gpus` entries when it
 * lists indexes, else 0…gpus−1 (what DeepSpeed's launcher and torchrun take). Assumes CUDA's order is
 * nvidia-smi's (CUDA_DEVICE_ORDER=PCI_BUS_ID, or GPUs of one model, where the two agree).
 */
export function runGpuIndexes(gpus: number, env: NodeJS.ProcessEnv = process.env): number[] {
  const visible = env.CUDA_VISIBLE_DEVICES?.split(',').map((v) => v.trim());
  if (visible && visible.length && visible.every((v) => /^\d+$/.test(v))) return visible.slice(0, gpus).map(Number);
  return Array.from({ length: Math.max(1, gpus) }, (_, i) => i);
}

export function startMonitor(options: MonitorOptions = {}): ResourceMonitor {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const startedAt = Date.now();
  const ring = new SampleRing(options.capacity);
  const host = new HostSampler(options.procRoot);
  const steps: StepMark[] = [];
  let dropped = 0;
  let reading = false;
  let stopped = false;

  const gpus = machineGpus(options.machine);
  const nvidia = gpus?.filter((g) => g.vendor === 'nvidia') ?? null;
  const pcieLinkGBps: Record<string, number> = {};
  for (const g of nvidia ?? []) {
    const rate = pcieNominalGBps(Number(g.pcie?.gen), Number(g.pcie?.width));
    if (rate !== null && typeof g.index === 'number') pcieLinkGBps[String(g.index)] = rate;
  }
  // No NVIDIA GPU in the snapshot: nvidia-smi is not started (it would only say so, or hang on a broken driver).
  const noGpu = nvidia !== null && nvidia.length === 0 && !options.gpu?.command;
  let noGpuReason: string | null = noGpu ? 'no NVIDIA GPU on this machine' : null;
  let gpu: GpuSampler | null = null;
  if (!noGpu) {
    try {
      gpu = new GpuSampler({ intervalMs, rawFilePrefix: options.rawFilePrefix ?? null, ...options.gpu }).start();
    } catch (error) {
      gpu = null;
      noGpuReason = `the GPU sampler could not start: ${(error as Error).message}`;
    }
  }

  const availability = (): LaneAvailability => {
    const gpuLane = gpu ? { ...gpu.gpu } : { available: false, reason: noGpuReason ?? 'no GPU sampler' };
    const pcieLane = gpu ? { ...gpu.pcie } : { available: false, reason: noGpuReason ?? 'no GPU sampler' };
    return {
      gpu: gpuLane,
      pcie: pcieLane,
      // NVLink traffic counters (nvidia-smi nvlink -gt) are cumulative per link and reset by other tools; not sampled yet.
      nvlink: { available: false, reason: gpuLane.available ? 'NVLink counters are not sampled by this version' : gpuLane.reason },
      cpu: { ...host.cpu },
      memory: { ...host.memory },
      disk: { ...host.disk },
    };
  };

  const tick = () => {
    if (stopped) return;
    // The previous read is still pending (a slow /proc, a loaded machine): this tick is dropped, not queued.
    if (reading) {
      dropped++;
      return;
    }
    reading = true;
    const at = Date.now();
    host
      .read()
      .then((h) => {
        if (stopped) return;
        const readings = gpu?.readings(at) ?? [];
        const used = options.gpuIndexes ? readings.filter((g) => options.gpuIndexes!.includes(g.index)) : readings;
        const sample: ResourceSample = { t: at - startedAt, gpus: used, ...h };
        ring.push(sample);
        try {
          options.onSample?.(sample, availability());
        } catch {
          // the live view is a courtesy: a listener's failure loses nothing stored
        }
      })
      .catch(() => {
        dropped++;
      })
      .finally(() => (reading = false));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref(); // sampling never keeps the process alive
  tick();

  return {
    get availability() {
      return availability();
    },
    pcieLinkGBps,
    markStep(step, at = Date.now()) {
      if (stopped) return;
      const seconds = Number.isFinite(step.stepSeconds) && step.stepSeconds >= 0 ? Math.min(step.stepSeconds, 1e7) : 0;
      steps.push({ step: step.step, warmup: step.warmup, endT: at - startedAt, seconds });
    },
    stop() {
      if (!stopped) {
        stopped = true;
        clearInterval(timer);
        gpu?.stop();
      }
      return {
        startedAt: new Date(startedAt).toISOString(),
        intervalMs,
        availability: availability(),
        samples: ring.toArray(),
        steps: [...steps],
        dropped,
        downsampled: ring.downsampled,
        pcieLinkGBps,
      };
    },
  };
}
