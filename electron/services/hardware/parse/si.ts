// Pure parsers for systeminformation's objects on macOS and Windows, where /proc, sysfs and lsblk
// do not exist: si.cpu(), si.mem(), si.graphics().controllers, si.diskLayout(), si.blockDevices().
// What systeminformation cannot know there (NUMA nodes, the locked-memory limit) stays unknown:
// empty numaNodes, lockedMemoryLimitBytes null and not unlimited. Fields are typed loosely
// (every one optional) because the objects differ between systeminformation versions and OSes;
// tests run these on outputs posted in public issue threads (tests/fixtures/hosts/*/SOURCE.md).
import type { Cache, Cpu, Disk, Gpu, Memory } from '../../../contract';
import { adamSimdPath, simdCapabilities } from './cpu';

export interface SiCpu {
  manufacturer?: string;
  brand?: string;
  vendor?: string;
  speed?: number;
  speedMin?: number;
  speedMax?: number;
  cores?: number;
  physicalCores?: number;
  performanceCores?: number;
  efficiencyCores?: number;
  processors?: number;
  flags?: string;
  virtualization?: boolean;
  cache?: { l1d?: number | string | null; l1i?: number | string | null; l2?: number | string | null; l3?: number | string | null };
}
export interface SiMem {
  total?: number;
  available?: number;
  free?: number;
}
export interface SiGraphicsController {
  vendor?: string;
  model?: string;
  name?: string;
  bus?: string;
  vram?: number | null;
  vramDynamic?: boolean;
  driverVersion?: string;
  pciBus?: string;
  memoryTotal?: number;
  powerLimit?: number;
}
export interface SiDiskLayout {
  device?: string;
  type?: string; // 'SSD' | 'HD' | 'NVMe' | 'Unspecified' …
  name?: string;
  vendor?: string;
  size?: number;
  interfaceType?: string; // 'NVMe' | 'SATA' | 'PCIe' | 'RAID' | 'USB' | 'SCSI' …
}
export interface SiBlockDevice {
  name?: string;
  identifier?: string;
  type?: string;
  mount?: string;
  size?: number;
  physical?: string; // 'SSD' | 'HDD' | 'Network' …
  model?: string;
  removable?: boolean;
  protocol?: string;
}

/** What systeminformation gave on a non-Linux host (null members: that call failed). */
export interface RawSi {
  cpu: SiCpu | null;
  mem: SiMem | null;
  graphics: SiGraphicsController[] | null;
  diskLayout: SiDiskLayout[] | null;
  blockDevices: SiBlockDevice[] | null;
}

const posInt = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : null);

/**
 * "12th" + "Gen Intel® Core™ i5-12600K" (systeminformation splits Windows' name at the first
 * word) → "12th Gen Intel® Core™ i5-12600K"; "Apple" + "M1" → "Apple M1".
 */
function modelName(cpu: SiCpu): string {
  const parts = [cpu.manufacturer, cpu.brand].map((s) => (s ?? '').trim()).filter(Boolean);
  if (parts.length === 2 && parts[1].toLowerCase().startsWith(parts[0].toLowerCase())) return parts[1];
  return parts.join(' ') || 'unknown CPU';
}

function vendorName(cpu: SiCpu): string {
  const v = (cpu.vendor ?? '').trim();
  if (v) return v; // GenuineIntel, AuthenticAMD, Apple
  const m = (cpu.manufacturer ?? '').replace(/[®™]/g, '').trim();
  return /^(intel|amd|apple|qualcomm)/i.test(m) ? m : 'unknown';
}

/**
 * Caches: systeminformation reports one total per level, not per instance (docs/architecture.md), and on
 * Windows its L1 figures come from WMI in other units (the posted i5-12600K says l1d 128). A total
 * under 4 KiB cannot be a cache size in bytes, so it is dropped rather than shown wrong.
 */
function cachesFromSi(cache: SiCpu['cache']): Cache[] {
  const rows: [keyof NonNullable<SiCpu['cache']>, number, string][] = [
    ['l1d', 1, 'Data'],
    ['l1i', 1, 'Instruction'],
    ['l2', 2, 'Unified'],
    ['l3', 3, 'Unified'],
  ];
  const out: Cache[] = [];
  for (const [key, level, type] of rows) {
    const bytes = Number(cache?.[key] ?? NaN);
    if (Number.isFinite(bytes) && bytes >= 4096) out.push({ level, type, sizeBytes: bytes, sharedBy: null, instances: null });
  }
  return out;
}

/**
 * si.cpu() → Cpu. `arch` is the kernel's name (x86_64, aarch64). The CPU flags systeminformation
 * reads on Windows (WMI/cpuid feature bits of the 1990s: no AVX at all) and on macOS (empty on
 * Apple silicon) do not tell the SIMD level, so simd lists only what is certain (NEON is part of
 * every aarch64 CPU) and adamSimd says 'unknown' on x86 instead of claiming a scalar path.
 */
export function cpuFromSi(cpu: SiCpu, arch: string, logicalFallback: number): Cpu {
  const logical = posInt(cpu.cores) ?? logicalFallback;
  const physical = posInt(cpu.physicalCores) ?? logical;
  const sockets = posInt(cpu.processors) ?? 1;
  // Hybrid CPUs (P-cores with SMT, E-cores without) have a fractional ratio: round it.
  const threadsPerCore = Math.max(1, Math.round(logical / physical));
  const flags = (cpu.flags ?? '').split(/\s+/).filter(Boolean);
  const isArm = /^(aarch64|arm64)/.test(arch);
  const fromFlags = simdCapabilities(flags, arch);
  const simdKnown = isArm || fromFlags.some((f) => f.startsWith('avx'));
  const simd = isArm && !fromFlags.includes('neon') ? ['neon', ...fromFlags] : fromFlags;
  return {
    vendor: vendorName(cpu),
    model: modelName(cpu),
    architecture: arch,
    sockets,
    physicalCores: physical,
    logicalCores: logical,
    threadsPerCore,
    smt: logical > physical,
    baseMHz: cpu.speed ? Math.round(cpu.speed * 1000) : null,
    maxMHz: cpu.speedMax && cpu.speedMax >= (cpu.speed ?? 0) ? Math.round(cpu.speedMax * 1000) : null,
    numaNodes: [], // systeminformation has no NUMA data: unknown, not "one node"
    caches: cachesFromSi(cpu.cache),
    simd,
    flags,
    adamSimd: simdKnown ? adamSimdPath(simd, arch) : 'unknown',
    hypervisor: null,
  };
}

/** si.mem() → Memory. No hugepages/THP outside Linux; the locked-memory limit is unknown. */
export function memoryFromSi(mem: SiMem | null, fallback: { totalBytes: number; availableBytes: number | null }): Memory {
  return {
    totalBytes: posInt(mem?.total) ?? fallback.totalBytes,
    availableBytes: posInt(mem?.available) ?? fallback.availableBytes,
    hugePages: null,
    transparentHugePages: null,
    lockedMemoryLimitBytes: null,
    lockedMemoryUnlimited: false,
  };
}

const MIB = 1024 * 1024;

/**
 * si.graphics().controllers → NVIDIA GPUs, for when nvidia-smi itself could not be run here (it is
 * the better source: compute capability, PCIe link, UUID). systeminformation merges nvidia-smi's
 * memoryTotal/pciBus/driverVersion into NVIDIA entries when it finds the tool; without them only
 * `vram` is left, which old versions cap at 4095 MiB on Windows (WMI's 32-bit AdapterRAM).
 */
export function nvidiaGpusFromSi(controllers: SiGraphicsController[]): Gpu[] {
  return controllers
    .filter((c) => /nvidia/i.test(`${c.vendor ?? ''} ${c.model ?? ''}`))
    .map((c, index): Gpu => ({
      index,
      vendor: 'nvidia',
      name: (c.name ?? c.model ?? 'NVIDIA GPU').trim(),
      uuid: null,
      busId: c.pciBus ?? null,
      memoryBytes: (posInt(c.memoryTotal) ?? posInt(c.vram) ?? 0) * MIB,
      computeCapability: null,
      driverVersion: c.driverVersion ?? null,
      cudaVersion: null,
      pcie: { gen: null, width: null, maxGen: null, maxWidth: null },
      numaNode: null,
      cpuAffinity: null,
      powerLimitWatts: posInt(c.powerLimit),
      links: [],
    }));
}

/** The graphics adapters that are not CUDA devices, named for the "no CUDA GPU" message. */
export function otherAdapters(controllers: SiGraphicsController[]): string[] {
  return controllers
    .filter((c) => !/nvidia/i.test(`${c.vendor ?? ''} ${c.model ?? ''}`))
    .map((c) => (c.model ?? c.name ?? '').trim())
    .filter(Boolean);
}

function rotational(kind: string | undefined): boolean | null {
  const k = (kind ?? '').toUpperCase();
  if (k === 'HD' || k === 'HDD') return true;
  if (k === 'SSD' || k === 'NVME') return false;
  return null;
}

/**
 * Disks: si.diskLayout() lists physical drives (name, size, interface); si.blockDevices() lists
 * volumes (macOS: whole disks too, as disk0, with partitions disk0s1…; Windows: drive letters that
 * cannot be tied to a physical drive). NVMe only where a source says NVMe: an Apple SSD on
 * "PCI" may be AHCI, so it is not guessed.
 */
export function disksFromSi(layout: SiDiskLayout[] | null, blocks: SiBlockDevice[] | null): Disk[] {
  const blockList = blocks ?? [];
  const mountsOf = (id: string) => [
    ...new Set(
      blockList
        .filter((b) => b.identifier && b.mount && (b.identifier === id || b.identifier.startsWith(`${id}s`)))
        .map((b) => b.mount as string),
    ),
  ];
  if (layout?.length) {
    return layout.map((d, i): Disk => {
      // macOS: /dev/disk0; Windows: \\.\PHYSICALDRIVE0 (newer) or a PnP id (older, unusable).
      const device = (d.device ?? '').replace(/^\/dev\//, '');
      const drive = /PHYSICALDRIVE\d+/i.exec(device)?.[0];
      const transport = d.interfaceType ? d.interfaceType.toLowerCase() : null;
      const name = drive ?? (/^[\w.-]+$/.test(device) ? device : `disk${i}`);
      return {
        name,
        model: (d.name ?? '').trim() || null,
        transport,
        sizeBytes: Number(d.size ?? 0),
        rotational: rotational(d.type),
        mountpoints: /^disk\d+$/.test(name) ? mountsOf(name) : [],
        // Windows names NVMe disks SCSI\DISK&VEN_NVME&PROD_… in their PnP id, whatever interfaceType says.
        isNvme: transport === 'nvme' || (d.type ?? '').toLowerCase() === 'nvme' || /VEN_NVME/i.test(d.device ?? ''),
      };
    });
  }
  // macOS without a layout: whole disks appear in blockDevices as /dev/diskN.
  return blockList
    .filter((b) => /^disk\d+$/.test(b.identifier ?? '') && (b.type === 'disk' || /^\/dev\/disk\d+$/.test(b.name ?? '')))
    .map((b): Disk => {
      const id = b.identifier as string;
      const transport = b.protocol ? b.protocol.toLowerCase() : null;
      return {
        name: id,
        model: (b.model ?? '').trim() || null,
        transport,
        sizeBytes: Number(b.size ?? 0),
        rotational: rotational(b.physical),
        mountpoints: mountsOf(id),
        isNvme: transport === 'nvme',
      };
    });
}
