// What the lanes say about each measured step, and beside it the tuner's predicted terms for the
// run's configuration: a user sees which resource a slow strategy waited on, the team sees which
// term of the model is off. Every figure is read from stored samples; a lane that was not
// measured is named as such, never averaged as zeros.
import {
  median,
  formatBytes,
  type LaneReading,
  type PredictedTerm,
  type ResourceAttribution,
  type ResourceRecord,
  type ResourceSample,
} from '../../contract';
import { formatCpuList } from '../hardware';

const BUSY_CORE = 90; // a core at ≥ 90% is saturated (CPU Adam's workers run at 100%)
const USED_CORE = 50; // a core busy half the window on average is one the run used

const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);
const round = (x: number | null, digits = 1) => (x === null ? null : Number(x.toFixed(digits)));

/** Which lane measures what each predicted term models. */
export const TERM_LANES: Record<string, 'gpu' | 'pcie' | 'nvlink' | 'cpu' | 'disk'> = {
  compute: 'gpu',
  fetchExposed: 'pcie',
  commExposed: 'nvlink',
  transferExposed: 'pcie',
  pageableExposed: 'pcie',
  hostCopyExposed: 'cpu',
  cpuAdamExposed: 'cpu',
  nvmeExposed: 'disk',
};

export function readWindow(record: ResourceRecord, fromT: number, toT: number, label: string, noun = 'the step'): LaneReading {
  const a = record.availability;
  // A sample stands for the interval before it (CPU shares and nvidia-smi's utilisation both do):
  // the window takes the samples that end inside it, plus the first one after its end when none does.
  let inside = record.samples.filter((s) => s.t > fromT && s.t <= toT);
  if (inside.length === 0) {
    const next = record.samples.find((s) => s.t > toT && s.t - toT <= record.intervalMs * (record.samples[0]?.merged ?? 1) * 2);
    if (next) inside = [next];
  }
  const weight = (s: ResourceSample) => s.merged ?? 1;
  const n = inside.length;
  const seconds = (toT - fromT) / 1000;
  const sampleSeconds = inside.reduce((t, s) => t + weight(s), 0) * (record.intervalMs / 1000);

  const gpuUtil = inside.flatMap((s) => s.gpus.map((g) => g.utilPct)).filter(finite);
  const gpuMem = inside.flatMap((s) => s.gpus.map((g) => g.memUsedMiB)).filter(finite);
  const gpuPower = inside.flatMap((s) => s.gpus.map((g) => g.powerW)).filter(finite);
  // PCIe per GPU: rx + tx at each instant, and whether either direction ran at half the link or more.
  const links = record.pcieLinkGBps ?? {};
  const pcie: number[] = [];
  let pcieHalf = 0;
  let pcieCounted = 0;
  for (const s of inside)
    for (const g of s.gpus) {
      if (!finite(g.pcieRxMBps) && !finite(g.pcieTxMBps)) continue;
      const rx = (g.pcieRxMBps ?? 0) / 1000;
      const tx = (g.pcieTxMBps ?? 0) / 1000;
      pcie.push(rx + tx);
      const link = links[String(g.index)];
      if (finite(link)) {
        pcieCounted++;
        if (Math.max(rx, tx) >= link / 2) pcieHalf++;
      }
    }
  const linkRates = Object.values(links).filter(finite);
  const pcieLink = linkRates.length ? Math.max(...linkRates) : null;

  const withCores = inside.filter((s) => s.cpuBusyPct.length > 0);
  const busyCounts = withCores.map((s) => s.cpuBusyPct.filter((p) => p >= BUSY_CORE).length);
  const coresBusyPeak = withCores.length ? Math.max(...busyCounts) : null;
  const coresBusySeconds = withCores.length
    ? withCores.filter((_, i) => busyCounts[i] > 0).reduce((t, s) => t + weight(s), 0) * (record.intervalMs / 1000)
    : null;
  const cores = withCores.length ? Math.max(...withCores.map((s) => s.cpuBusyPct.length)) : 0;
  const used: number[] = [];
  for (let c = 0; c < cores; c++) {
    const m = meanOf(withCores.map((s) => s.cpuBusyPct[c]).filter(finite));
    if (m !== null && m >= USED_CORE) used.push(c);
  }

  const memUsed = inside.map((s) => s.memUsedBytes).filter(finite);
  const swapUsed = inside.map((s) => s.swapUsedBytes).filter(finite);
  const diskR = inside.map((s) => s.diskReadBps).filter(finite);
  const diskW = inside.map((s) => s.diskWriteBps).filter(finite);

  const reading: Omit<LaneReading, 'text'> = {
    label,
    fromT,
    toT,
    samples: n,
    gpuBusyPct: a.gpu.available ? round(meanOf(gpuUtil), 0) : null,
    gpuMemMaxMiB: a.gpu.available && gpuMem.length ? Math.max(...gpuMem) : null,
    gpuPowerW: a.gpu.available ? round(meanOf(gpuPower), 0) : null,
    pcieGBps: a.pcie.available ? round(meanOf(pcie)) : null,
    pciePeakGBps: a.pcie.available && pcie.length ? round(Math.max(...pcie)) : null,
    pcieLinkGBps: pcieLink === null ? null : round(pcieLink, 0),
    pcieBusyShare: a.pcie.available && pcieCounted ? round(pcieHalf / pcieCounted, 2) : null,
    coresBusyPeak: a.cpu.available ? coresBusyPeak : null,
    coresBusySeconds: a.cpu.available ? round(coresBusySeconds) : null,
    busyCores: a.cpu.available && withCores.length ? formatCpuList(used) || 'none' : null,
    memUsedMaxBytes: a.memory.available && memUsed.length ? Math.max(...memUsed) : null,
    swapUsedMaxBytes: a.memory.available && swapUsed.length ? Math.max(...swapUsed) : null,
    diskReadBps: a.disk.available ? meanOf(diskR) : null,
    diskWriteBps: a.disk.available ? meanOf(diskW) : null,
  };
  return { ...reading, text: describe(record, reading, n, seconds, sampleSeconds, noun) };
}

function describe(
  record: ResourceRecord,
  r: Omit<LaneReading, 'text'>,
  n: number,
  seconds: number,
  sampleSeconds: number,
  noun: string,
): string {
  const a = record.availability;
  if (n === 0) return `no sample inside ${noun} (${seconds.toFixed(2)} s; one every ${(record.intervalMs / 1000).toFixed(1)} s)`;
  const parts: string[] = [];
  if (!a.gpu.available) parts.push(`GPU not available: ${a.gpu.reason}`);
  else if (r.gpuBusyPct === null) parts.push('GPU: no reading in this window');
  else
    parts.push(
      `GPU busy ${r.gpuBusyPct}%${r.gpuMemMaxMiB !== null ? `, ${formatBytes(r.gpuMemMaxMiB * 2 ** 20)} used` : ''}${r.gpuPowerW !== null ? `, ${r.gpuPowerW} W` : ''}`,
    );
  if (!a.pcie.available) {
    if (a.gpu.available) parts.push(`PCIe not available: ${a.pcie.reason}`);
  } else if (r.pcieGBps === null) parts.push('PCIe: no reading in this window');
  else
    parts.push(
      `PCIe ${r.pcieGBps} GB/s (peak ${r.pciePeakGBps})${r.pcieLinkGBps !== null ? ` of ${r.pcieLinkGBps} nominal` : ''}${r.pcieBusyShare !== null ? `, at half the link or more for ${Math.round(r.pcieBusyShare * 100)}% of ${noun}` : ''}`,
    );
  if (!a.cpu.available) parts.push(`CPU not available: ${a.cpu.reason}`);
  else if (r.coresBusyPeak === null) parts.push('CPU: no reading in this window');
  else
    parts.push(
      `${r.coresBusyPeak} core(s) at ≥${BUSY_CORE}%${r.coresBusySeconds ? ` for ${r.coresBusySeconds} s` : ''} (cores used: ${r.busyCores})`,
    );
  if (a.memory.available && r.memUsedMaxBytes !== null)
    parts.push(
      `host memory ${formatBytes(r.memUsedMaxBytes)}${r.swapUsedMaxBytes !== null ? `, swap ${formatBytes(r.swapUsedMaxBytes)}` : ', no swap'}`,
    );
  if (a.disk.available && r.diskReadBps !== null && r.diskWriteBps !== null)
    parts.push(`disk read ${(r.diskReadBps / 1e6).toFixed(0)} MB/s, write ${(r.diskWriteBps / 1e6).toFixed(0)} MB/s`);
  // Samples taken cover sampleSeconds of the window's seconds: a short step is read from one sample.
  if (sampleSeconds < seconds * 0.5) parts.push(`(from ${n} sample(s) over a ${seconds.toFixed(2)} s window)`);
  return parts.join('; ');
}

export interface PredictedInput {
  stepSeconds: number | null;
  terms: Record<string, number> | null;
  note: string | null;
}

const LANE_OF_READING: Record<string, (r: LaneReading) => string> = {
  gpu: (r) => (r.gpuBusyPct === null ? 'no reading' : `GPU busy ${r.gpuBusyPct}%`),
  pcie: (r) =>
    r.pcieGBps === null
      ? 'no reading'
      : `${r.pcieGBps} GB/s${r.pcieBusyShare !== null ? `, ≥ half the link ${Math.round(r.pcieBusyShare * 100)}% of the time` : ''}`,
  nvlink: () => 'no reading',
  cpu: (r) =>
    r.coresBusyPeak === null
      ? 'no reading'
      : `${r.coresBusyPeak} core(s) ≥${BUSY_CORE}%${r.coresBusySeconds ? ` for ${r.coresBusySeconds} s` : ''}`,
  disk: (r) =>
    r.diskReadBps === null || r.diskWriteBps === null
      ? 'no reading'
      : `read ${(r.diskReadBps / 1e6).toFixed(0)} MB/s, write ${(r.diskWriteBps / 1e6).toFixed(0)} MB/s`,
};

export function attribute(record: ResourceRecord, predicted: PredictedInput): ResourceAttribution {
  const measured = record.steps.filter((s) => !s.warmup);
  const steps = measured.map((s) => readWindow(record, s.endT - s.seconds * 1000, s.endT, `step ${s.step}`));
  const overall = measured.length
    ? readWindow(
        record,
        Math.min(...measured.map((s) => s.endT - s.seconds * 1000)),
        Math.max(...measured.map((s) => s.endT)),
        'measured steps',
        'the measured steps',
      )
    : null;
  // The one median (contract/median.ts): this took the upper middle of an even count, unlike every other page.
  const stepSeconds = median(measured.map((s) => s.seconds));
  const terms: PredictedTerm[] = [];
  for (const [term, seconds] of Object.entries(predicted.terms ?? {})) {
    const lane = TERM_LANES[term];
    if (!lane || !finite(seconds) || seconds <= 0) continue;
    const state = record.availability[lane];
    terms.push({
      term,
      seconds,
      lane,
      measured: !state.available ? `not available: ${state.reason}` : overall ? LANE_OF_READING[lane](overall) : 'no measured step',
    });
  }
  const unavailable = (Object.entries(record.availability) as [string, { available: boolean; reason: string | null }][])
    .filter(([, s]) => !s.available)
    .map(([lane, s]) => `${lane}: not available: ${s.reason}`);
  return {
    overall,
    steps,
    predicted: { stepSeconds: predicted.stepSeconds, terms, note: predicted.note },
    measuredStepSeconds: stepSeconds,
    unavailable,
  };
}
