// A machine (detected, from a file, or catalogued) + optional host measurements → the rates the
// throughput model uses, each with where it came from: measured > catalog (resources/presets/gpus.json)
// > the machine's own nominal link figure > a stated default.
import type { GpuCatalogEntry, HardwareProfile, Machine } from '../../../contract';
import type { TunerMeasurements } from './measurements';
import { catalog } from './presets';

/** Defaults where neither a measurement nor the catalog says anything (docs/tuner-model.md). */
export const PROFILE_DEFAULTS = {
  matmulTflops: 100,
  hostLinkBytesPerSecond: 24e9, // PCIe Gen4 x16, effective
  peerLinkBytesPerSecond: 24e9,
  interNodeBytesPerSecond: 100e9, // per node: 8 × 100 Gb/s NICs
  diskBytesPerSecond: 3e9, // one PCIe Gen4 NVMe drive, sequential
  // CPU Adam per physical core (params/s): DeepSpeedCPUAdam's AVX-512 / AVX2 paths; aarch64 takes the
  // scalar path (GraceAdam is not in the repository, docs/engine-facts.md).
  adamPerCore: { avx512: 0.22e9, avx2: 0.12e9, aarch64: 0.08e9, other: 0.05e9 },
  memoryBandwidthPerCore: 5.5e9,
  /** Bytes of host memory traffic per parameter of one Adam step (fp32 p, g, m, v read; p, m, v written; bf16 copy). */
  adamBytesPerParam: 30,
} as const;

export function matchGpu(name: string | null | undefined): GpuCatalogEntry | null {
  if (!name) return null;
  const lower = name.toLowerCase();
  return catalog().gpus.find((g) => g.match.some((m) => lower.includes(m))) ?? null;
}

function adamPerCore(machine: Machine): { rate: number; key: string } {
  const simd = machine.cpu.simd.map((s) => s.toLowerCase());
  if (/aarch64|arm64/.test(machine.cpu.architecture)) return { rate: PROFILE_DEFAULTS.adamPerCore.aarch64, key: 'aarch64' };
  if (simd.includes('avx512f')) return { rate: PROFILE_DEFAULTS.adamPerCore.avx512, key: 'avx512' };
  if (simd.includes('avx2')) return { rate: PROFILE_DEFAULTS.adamPerCore.avx2, key: 'avx2' };
  return { rate: PROFILE_DEFAULTS.adamPerCore.other, key: 'other' };
}

export function buildProfile(
  machine: Machine,
  source: HardwareProfile['machineSource'],
  measurements?: TunerMeasurements,
): HardwareProfile {
  const sources: Record<string, string> = {};
  const gpu0 = machine.gpus[0];
  const entry = matchGpu(gpu0?.name);
  const cores = Math.max(1, machine.cpu.physicalCores);

  let matmulTflops: number = PROFILE_DEFAULTS.matmulTflops;
  if (measurements?.gpuMatmulTflops) [matmulTflops, sources.matmulTflops] = [measurements.gpuMatmulTflops, 'measured'];
  else if (entry) [matmulTflops, sources.matmulTflops] = [entry.matmulTflops, `catalog:${entry.id}`];
  else sources.matmulTflops = 'default';
  if (!gpu0) [matmulTflops, sources.matmulTflops] = [0, 'no GPU'];

  // host link: measured pinned copy, else catalog, else the machine's nominal link × 0.85
  const cpuLink = gpu0?.links.find((l) => (l.kind === 'c2c' || l.kind === 'pcie') && l.bytesPerSecond);
  let hostLink: number = PROFILE_DEFAULTS.hostLinkBytesPerSecond;
  if (measurements?.hostToDeviceBytesPerSecond) [hostLink, sources.hostLink] = [measurements.hostToDeviceBytesPerSecond, 'measured'];
  else if (entry && !(cpuLink?.kind === 'pcie' && entry.hostLink.kind === 'c2c'))
    [hostLink, sources.hostLink] = [entry.hostLink.bytesPerSecond, `catalog:${entry.id}`];
  else if (cpuLink?.bytesPerSecond) [hostLink, sources.hostLink] = [cpuLink.bytesPerSecond * 0.85, 'machine link × 0.85'];
  else sources.hostLink = 'default';

  // pageable host→GPU (DeepSpeed's blocking fp32→bf16 parameter copies go this way): measured, else derived in throughput.ts
  let hostLinkPageable: number | undefined;
  if (measurements?.hostToDevicePageableBytesPerSecond)
    [hostLinkPageable, sources.hostLinkPageable] = [measurements.hostToDevicePageableBytesPerSecond, 'measured'];
  else
    sources.hostLinkPageable =
      cpuLink?.kind === 'c2c' || entry?.hostLink.kind === 'c2c'
        ? 'default (C2C: 0.5 × pinned)'
        : 'default (PCIe: 0.11 × pinned, as measured on the H200 host)';
  if (sources.hostLink?.startsWith('catalog') && entry?.hostLink.kind === 'c2c') sources.hostLink = `${sources.hostLink} (c2c)`;

  // GPU↔GPU: the sum of a GPU's NVLink peers where detected, else catalog
  const nvlinkSum = (gpu0?.links ?? [])
    .filter((l) => l.kind === 'nvlink' && l.peer.startsWith('GPU'))
    .reduce((a, l) => a + (l.bytesPerSecond ?? 0), 0);
  let peerLink: number = PROFILE_DEFAULTS.peerLinkBytesPerSecond;
  if (nvlinkSum > 0) [peerLink, sources.peerLink] = [nvlinkSum, 'machine links'];
  else if (entry) [peerLink, sources.peerLink] = [entry.peerLink.bytesPerSecond, `catalog:${entry.id}`];
  else sources.peerLink = 'default';

  const nvmeDisks = machine.disks.filter((d) => d.isNvme);
  let disk: number = PROFILE_DEFAULTS.diskBytesPerSecond;
  if (measurements?.diskBytesPerSecond) [disk, sources.disk] = [measurements.diskBytesPerSecond, 'measured'];
  else sources.disk = nvmeDisks.length ? 'default (one NVMe drive)' : 'default (no NVMe detected)';

  let memBw = cores * PROFILE_DEFAULTS.memoryBandwidthPerCore;
  if (measurements?.memoryBandwidthBytesPerSecond)
    [memBw, sources.hostMemoryBandwidth] = [measurements.memoryBandwidthBytesPerSecond, 'measured'];
  else sources.hostMemoryBandwidth = `default (${PROFILE_DEFAULTS.memoryBandwidthPerCore / 1e9} GB/s per core)`;

  // CPU Adam sweep: measured, else per-core rate × threads capped by memory bandwidth
  let cpuAdam = measurements?.cpuAdam?.filter((r) => r.threads > 0 && r.paramsPerSecond > 0) ?? [];
  if (cpuAdam.length) sources.cpuAdam = 'measured';
  else {
    const { rate, key } = adamPerCore(machine);
    const cap = memBw / PROFILE_DEFAULTS.adamBytesPerParam;
    const points = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].filter((t) => t < cores).concat([cores]);
    cpuAdam = points.map((t) => ({ threads: t, paramsPerSecond: Math.min(rate * t, cap) }));
    sources.cpuAdam = `default (${rate / 1e9} G params/s per ${key} core, capped by memory bandwidth / ${PROFILE_DEFAULTS.adamBytesPerParam} B)`;
  }

  // torch's CPU AdamW (FSDP2 offload): this host's own rates where measured, else a share of the CPU Adam
  // sweep taken from the H200 host (throughput-constants.ts: torchPlainAdamFactor, torchFusedAdamFactor).
  const torchAdam = measurements?.torchAdam;
  sources.torchAdam = torchAdam
    ? 'measured'
    : "default (the H200 host's ratio to DeepSpeed's CPU Adam: plain loop 0.143, fused 0.93; measure with the engine environment for this host's)";

  return {
    machineLabel: `${machine.hostname}${gpu0 ? ` — ${machine.gpus.length}× ${gpu0.name}` : ' — no GPU'}`,
    machineSource: source,
    machineId: source === 'catalogued' ? null : (machine.machineId ?? null),
    gpuName: gpu0?.name ?? null,
    gpuCount: machine.gpus.length,
    gpuMemoryBytes: gpu0?.memoryBytes ?? 0,
    hostMemoryBytes: machine.memory.totalBytes,
    nvmeBytes: nvmeDisks.reduce((a, d) => Math.max(a, d.sizeBytes), 0),
    physicalCores: cores,
    matmulTflops,
    hostLinkBytesPerSecond: hostLink,
    ...(hostLinkPageable ? { hostLinkPageableBytesPerSecond: hostLinkPageable } : {}),
    peerLinkBytesPerSecond: peerLink,
    interNodeBytesPerSecond: PROFILE_DEFAULTS.interNodeBytesPerSecond,
    diskBytesPerSecond: disk,
    hostMemoryBytesPerSecond: memBw,
    ...(measurements?.memoryBandwidthByThreads?.length ? { hostMemoryByThreads: measurements.memoryBandwidthByThreads } : {}),
    cpuAdam,
    ...(torchAdam ? { torchAdam } : {}),
    sources,
  };
}

/**
 * A rate measured by thread count at `threads`: linear from the origin to the first point, linear
 * between points, the last point's beyond. `value` reads a point's rate (no copies: the search calls
 * this in its inner loop).
 */
export function rateAtThreads<T extends { threads: number }>(points: readonly T[], threads: number, value: (p: T) => number): number {
  if (threads <= points[0].threads) return (value(points[0]) * threads) / points[0].threads;
  for (let i = 1; i < points.length; i++)
    if (threads <= points[i].threads) {
      const [a, b] = [points[i - 1], points[i]];
      return value(a) + ((value(b) - value(a)) * (threads - a.threads)) / (b.threads - a.threads);
    }
  return value(points[points.length - 1]);
}

const adamRateOf = (p: { paramsPerSecond: number }) => p.paramsPerSecond;

/** CPU Adam rate of the host at `threads`, interpolated on the sweep (flat beyond its ends). */
export function cpuAdamRate(profile: HardwareProfile, threads: number): number {
  if (profile.cpuAdam.length === 0) return 1e8;
  return rateAtThreads(profile.cpuAdam, threads, adamRateOf);
}
