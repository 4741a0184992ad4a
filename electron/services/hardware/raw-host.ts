// Everything detection reads from the host, as raw text. The readers (sources.ts) fill it from
// the live machine; tests fill it from a captured fixture folder; build.ts turns it into a
// Machine with pure parsers only. null = the file or tool was not available.
import type { Machine } from '../../contract';
import type { SysfsCacheEntry } from './parse/cpu';
import type { RawSi } from './parse/si';

export interface RawNumaNode {
  id: number;
  cpulist: string;
  meminfo: string | null;
}

export interface RawHost {
  hostname: string;
  os: Machine['os'];
  /** static facts from systeminformation (no NUMA, caches as totals: see docs/architecture.md) */
  staticCpu: { vendor: string; brand: string; baseMHz: number | null; maxMHz: number | null; sockets: number | null } | null;
  fallbackMemory: { totalBytes: number; availableBytes: number | null };
  fallbackCores: { logical: number; physical: number | null };
  lscpuJson: string | null;
  lscpuText: string | null;
  cpuinfo: string | null;
  meminfo: string | null;
  limits: string | null;
  thp: string | null;
  numa: RawNumaNode[] | null;
  caches: SysfsCacheEntry[] | null;
  nvidiaSmi: { xml: string | null; error: string | null; notFound: boolean };
  computeCap: string | null;
  topo: string | null;
  nvlink: string | null;
  rocmSmi: string | null;
  lsblk: string | null;
  /** PCI bus id (lower case, 0000:00:06.0) → sysfs numa_node, for GPUs topo -m did not place */
  pciNuma: Record<string, number>;
  /** block device name → sysfs numa_node of its controller (NVMe) */
  blockNuma: Record<string, number>;
  /**
   * systeminformation's cpu/mem/graphics/diskLayout/blockDevices, read only where the Linux
   * sources above do not exist (macOS, Windows); absent or null on Linux.
   */
  si?: RawSi | null;
}
