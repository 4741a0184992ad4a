// RawHost → Machine, with pure parsers only (no I/O), so fixtures exercise the same path as a live host.
import type { Cpu, Disk, Gpu, Machine, NumaNode } from '../../contract';
import {
  adamSimdPath,
  armName,
  cachesFromLscpu,
  cachesFromSysfs,
  parseCpuinfo,
  parseLscpuJson,
  parseLscpuText,
  simdCapabilities,
  type LscpuFields,
} from './parse/cpu';
import { parseLsblk } from './parse/disks';
import { buildMemory, parseLockedMemoryLimit, parseMeminfo, parseThpMode } from './parse/memory';
import { parseComputeCapCsv, parseNvidiaSmiXml, parseNvlinkStatus, parseTopoMatrix } from './parse/nvidia-smi';
import { parseRocmSmiJson } from './parse/rocm-smi';
import { cpuFromSi, disksFromSi, memoryFromSi, nvidiaGpusFromSi, otherAdapters } from './parse/si';
import { parseCpuList } from './parse/util';
import type { RawHost } from './raw-host';
import { attachLinks } from './links';
import { detectSuperchip } from './superchip';
import { buildTopology } from './topology';
import { computeWarnings } from './warnings';
import { machineId } from './machine-id';

/** A parser failure on one source must not sink detection: keep the rest, note the gap. */
function safe<T>(fn: () => T, fallback: T, problems: string[], what: string): T {
  try {
    return fn();
  } catch (error) {
    problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    return fallback;
  }
}

/** Node's os.arch() names (x64, arm64) → the kernel's (x86_64, aarch64), as lscpu prints them. */
export function normaliseArch(arch: string): string {
  return ({ x64: 'x86_64', arm64: 'aarch64', ia32: 'i686' } as Record<string, string>)[arch] ?? arch;
}

const parsedNumber = (s: string | undefined) => (s !== undefined && s !== '' && Number.isFinite(Number(s)) ? Number(s) : null);

export function buildCpu(raw: RawHost, problems: string[] = []): Cpu {
  // macOS / Windows: no lscpu, no /proc: systeminformation's cpu() is the source.
  if (!raw.lscpuJson && !raw.lscpuText && !raw.cpuinfo && raw.si?.cpu)
    return cpuFromSi(raw.si.cpu, normaliseArch(raw.os.arch), raw.fallbackCores.logical);
  const lscpu: LscpuFields = raw.lscpuJson
    ? safe(() => parseLscpuJson(raw.lscpuJson as string), {}, problems, 'lscpu -J')
    : raw.lscpuText
      ? parseLscpuText(raw.lscpuText)
      : {};
  const info = raw.cpuinfo ? parseCpuinfo(raw.cpuinfo) : null;
  const architecture = lscpu.Architecture ?? normaliseArch(raw.os.arch);
  const arm = armName(info?.implementer ?? null, info?.part ?? null);
  const vendor = lscpu['Vendor ID'] ?? info?.vendor ?? arm.vendor ?? raw.staticCpu?.vendor ?? 'unknown';
  const model = lscpu['Model name'] ?? info?.model ?? arm.model ?? raw.staticCpu?.brand ?? 'unknown CPU';

  const logical = parsedNumber(lscpu['CPU(s)']) ?? (info?.logical || raw.fallbackCores.logical);
  const threadsPerCore = parsedNumber(lscpu['Thread(s) per core']) ?? 1;
  // Some Arm servers report clusters instead of sockets ("Cluster(s)").
  const sockets = parsedNumber(lscpu['Socket(s)']) ?? parsedNumber(lscpu['Cluster(s)']) ?? (info?.sockets || raw.staticCpu?.sockets || 1);
  const perSocket = parsedNumber(lscpu['Core(s) per socket']) ?? parsedNumber(lscpu['Core(s) per cluster']);
  const physical =
    perSocket !== null ? perSocket * sockets : info?.physicalCores || raw.fallbackCores.physical || Math.round(logical / threadsPerCore);

  const flags = (lscpu.Flags ?? '').split(/\s+/).filter(Boolean);
  const allFlags = flags.length ? flags : (info?.flags ?? []);
  const simd = simdCapabilities(allFlags, architecture);

  let numaNodes: NumaNode[] = (raw.numa ?? []).map((n) => {
    const mem = n.meminfo ? parseMeminfo(n.meminfo) : {};
    return { id: n.id, cpus: parseCpuList(n.cpulist), memoryBytes: mem.MemTotal ?? null, memoryFreeBytes: mem.MemFree ?? null };
  });
  if (numaNodes.length === 0) {
    // No sysfs (fixture, container): lscpu lists "NUMA nodeN CPU(s)" without memory.
    for (const [key, value] of Object.entries(lscpu)) {
      const m = /^NUMA node(\d+) CPU\(s\)$/.exec(key);
      if (m) numaNodes.push({ id: Number(m[1]), cpus: parseCpuList(value), memoryBytes: null, memoryFreeBytes: null });
    }
  }
  numaNodes = numaNodes.sort((a, b) => a.id - b.id);

  const caches = raw.caches?.length ? cachesFromSysfs(raw.caches, logical) : cachesFromLscpu(lscpu, logical);
  return {
    vendor,
    model,
    architecture,
    sockets,
    physicalCores: physical,
    logicalCores: logical,
    threadsPerCore,
    smt: threadsPerCore > 1,
    baseMHz: raw.staticCpu?.baseMHz ?? info?.mhz ?? null,
    maxMHz: parsedNumber(lscpu['CPU max MHz']) ?? raw.staticCpu?.maxMHz ?? null,
    numaNodes,
    caches,
    simd,
    flags: allFlags,
    adamSimd: adamSimdPath(simd, architecture),
    hypervisor: lscpu['Hypervisor vendor'] ?? null,
  };
}

function buildGpus(raw: RawHost, problems: string[]): { gpus: Gpu[]; status: Machine['gpuStatus'] } {
  if (raw.nvidiaSmi.xml) {
    const report = safe(() => parseNvidiaSmiXml(raw.nvidiaSmi.xml as string), null, problems, 'nvidia-smi -q -x');
    if (report) {
      const caps = raw.computeCap ? parseComputeCapCsv(raw.computeCap) : new Map<number, string>();
      const gpus = report.gpus.map((g) => {
        const numa = g.busId ? raw.pciNuma[normaliseBusId(g.busId)] : undefined;
        return {
          ...g,
          computeCapability: caps.get(g.index) ?? g.computeCapability,
          numaNode: g.numaNode ?? (numa !== undefined && numa >= 0 ? numa : null),
        };
      });
      return {
        gpus,
        status: {
          driver: 'nvidia',
          message: `NVIDIA driver ${report.driverVersion ?? '?'}, CUDA ${report.cudaVersion ?? '?'}: ${gpus.length} GPU(s)`,
        },
      };
    }
  }
  // nvidia-smi could not run but systeminformation saw NVIDIA adapters (Windows without the tool
  // on its paths): fewer facts (no UUID, capability, PCIe link), said so in the status.
  const siNvidia = raw.si?.graphics ? safe(() => nvidiaGpusFromSi(raw.si?.graphics ?? []), [], problems, 'si.graphics') : [];
  if (siNvidia.length)
    return {
      gpus: siNvidia,
      status: {
        driver: 'nvidia',
        message: `${siNvidia.length} NVIDIA GPU(s) seen by the OS, but nvidia-smi ${raw.nvidiaSmi.notFound ? 'was not found' : `failed (${raw.nvidiaSmi.error ?? 'no output'})`}: compute capability, PCIe link and UUID are unknown`,
      },
    };
  if (raw.rocmSmi) {
    const gpus = safe(() => parseRocmSmiJson(raw.rocmSmi as string), [], problems, 'rocm-smi --json');
    if (gpus.length) return { gpus, status: { driver: 'amd', message: `ROCm: ${gpus.length} AMD GPU(s)` } };
  }
  const others = raw.si?.graphics ? otherAdapters(raw.si.graphics) : [];
  if (others.length)
    return {
      gpus: [],
      status: {
        driver: 'none',
        message: `no CUDA GPU: ${others.join(', ')} ${others.length > 1 ? 'are' : 'is'} not usable by PyTorch CUDA / DeepSpeed`,
      },
    };
  const message = raw.nvidiaSmi.notFound
    ? 'no NVIDIA driver found (nvidia-smi is not on PATH)'
    : raw.nvidiaSmi.error
      ? `no NVIDIA GPU usable: nvidia-smi failed (${raw.nvidiaSmi.error})`
      : 'no GPU found';
  return { gpus: [], status: { driver: 'none', message } };
}

/** "00000000:00:06.0" (nvidia-smi, 8-digit domain) → "0000:00:06.0" (sysfs). */
export function normaliseBusId(busId: string): string {
  const m = /^(?:[0-9a-f]*?)([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(busId.trim());
  return m ? `${m[1]}:${m[2]}:${m[3]}.${m[4]}`.toLowerCase() : busId.toLowerCase();
}

export function buildMachine(raw: RawHost, detectedAt = new Date().toISOString()): Machine & { problems: string[] } {
  const problems: string[] = [];
  const cpu = buildCpu(raw, problems);
  const memory =
    !raw.meminfo && raw.si
      ? memoryFromSi(raw.si.mem, raw.fallbackMemory)
      : buildMemory(
          raw.meminfo ? parseMeminfo(raw.meminfo) : {},
          raw.limits ? parseLockedMemoryLimit(raw.limits) : null,
          parseThpMode(raw.thp),
          raw.fallbackMemory,
        );
  const { gpus: bare, status } = buildGpus(raw, problems);
  const superchip = detectSuperchip(cpu, bare);
  const topo = raw.topo ? safe(() => parseTopoMatrix(raw.topo as string), null, problems, 'nvidia-smi topo -m') : null;
  const nvlink = raw.nvlink ? parseNvlinkStatus(raw.nvlink) : [];
  const gpus = attachLinks(bare, topo, nvlink, superchip !== null);
  const disks: Disk[] = raw.lsblk
    ? safe(() => parseLsblk(raw.lsblk as string), [], problems, 'lsblk -J')
    : raw.si
      ? safe(() => disksFromSi(raw.si?.diskLayout ?? null, raw.si?.blockDevices ?? null), [], problems, 'si.diskLayout/blockDevices')
      : [];
  const facts = {
    schemaVersion: 1 as const,
    detectedAt,
    hostname: raw.hostname,
    os: raw.os,
    cpu,
    memory,
    gpus,
    gpuStatus: status,
    superchip,
    disks,
    machineId: machineId(
      raw.hostname,
      cpu.model,
      gpus.map((g) => g.uuid),
    ),
    topology: buildTopology(cpu, gpus, disks, raw.blockNuma),
  };
  return { ...facts, warnings: computeWarnings(facts), problems };
}
