// Hardware and environment shapes: what `hardware/detect` returns and `detect --json` prints.
// Runtime schemas (zod) so every process boundary can validate, and types inferred from them.
import { z } from 'zod';

export const NumaNodeSchema = z.object({
  id: z.number().int(),
  cpus: z.array(z.number().int()),
  memoryBytes: z.number().nullable(),
  // Free memory of the node at detection time (sysfs node*/meminfo MemFree); absent from old snapshots.
  memoryFreeBytes: z.number().nullable().optional(),
});

export const CacheSchema = z.object({
  level: z.number().int(),
  type: z.string(), // Data | Instruction | Unified
  sizeBytes: z.number(),
  sharedBy: z.number().int().nullable(), // logical CPUs sharing one instance
  instances: z.number().int().nullable(),
});

export const CpuSchema = z.object({
  vendor: z.string(),
  model: z.string(),
  architecture: z.string(), // x86_64 | aarch64 | ...
  sockets: z.number().int(),
  physicalCores: z.number().int(),
  logicalCores: z.number().int(),
  threadsPerCore: z.number().int(),
  smt: z.boolean(),
  baseMHz: z.number().nullable(),
  maxMHz: z.number().nullable(),
  numaNodes: z.array(NumaNodeSchema),
  caches: z.array(CacheSchema),
  simd: z.array(z.string()), // the flags that matter for CPU Adam: avx2, avx512f, amx_bf16, neon, sve, ...
  flags: z.array(z.string()).optional(),
  // The best CPU Adam code path DeepSpeed can build here: avx512 | avx256 | sve | neon | scalar.
  adamSimd: z.string().optional(),
  hypervisor: z.string().nullable().optional(), // "KVM" etc.: a VM's NUMA/PCIe view may not be the host's
});

export const MemorySchema = z.object({
  totalBytes: z.number(),
  availableBytes: z.number().nullable(),
  hugePages: z.object({ total: z.number(), free: z.number(), sizeBytes: z.number() }).nullable(),
  transparentHugePages: z.string().nullable(),
  lockedMemoryLimitBytes: z.number().nullable(), // ulimit -l; null = unlimited
  lockedMemoryUnlimited: z.boolean(),
});

export const GpuLinkSchema = z.object({
  kind: z.enum(['nvlink', 'pcie', 'c2c', 'xgmi', 'unknown']),
  peer: z.string(), // "GPU1", "CPU", "NUMA0"
  topo: z.string().nullable(), // nvidia-smi topo -m class: NV18, PIX, PXB, PHB, NODE, SYS
  count: z.number().int().nullable(), // number of links (NVLink) where known
  bandwidthClass: z.string(), // human: "NVLink ×18 (≈900 GB/s)", "PCIe Gen5 x16 (≈64 GB/s)"
  bytesPerSecond: z.number().nullable(), // nominal per direction
});

export const GpuSchema = z.object({
  index: z.number().int(),
  vendor: z.enum(['nvidia', 'amd']),
  name: z.string(),
  uuid: z.string().nullable(),
  busId: z.string().nullable(),
  memoryBytes: z.number(),
  computeCapability: z.string().nullable(),
  driverVersion: z.string().nullable(),
  cudaVersion: z.string().nullable(),
  pcie: z.object({
    gen: z.number().int().nullable(),
    width: z.number().int().nullable(),
    maxGen: z.number().int().nullable(),
    maxWidth: z.number().int().nullable(),
  }),
  numaNode: z.number().int().nullable(),
  cpuAffinity: z.string().nullable(),
  powerLimitWatts: z.number().nullable(),
  links: z.array(GpuLinkSchema),
  architecture: z.string().nullable().optional(), // Hopper, Ampere, ...
  c2cMode: z.boolean().nullable().optional(), // NVLink-C2C to a Grace CPU (GH200/GB200)
  addressingMode: z.string().nullable().optional(), // ATS / HMM / None
});

export const DiskSchema = z.object({
  name: z.string(),
  model: z.string().nullable(),
  transport: z.string().nullable(), // nvme | sata | virtio ...
  sizeBytes: z.number(),
  rotational: z.boolean().nullable(),
  mountpoints: z.array(z.string()),
  isNvme: z.boolean(),
});

export const WarningSchema = z.object({
  id: z.string(), // stable, e.g. 'pinned-memory-limit', 'pcie-degraded:0'
  severity: z.enum(['info', 'warning', 'critical']),
  message: z.string(),
  fix: z.string(),
});

// A picture-ready summary: the UI draws these nodes and edges without re-deriving topology.
export const TopologyNodeSchema = z.object({
  id: z.string(), // 'socket0', 'numa0', 'gpu0', 'nvme:nvme0n1'
  kind: z.enum(['socket', 'numa', 'gpu', 'nvme']),
  label: z.string(),
  parent: z.string().nullable(), // numa → socket, gpu/nvme → numa where known
  memoryBytes: z.number().nullable(),
});
export const TopologyEdgeSchema = z.object({
  from: z.string(),
  to: z.string(),
  kind: z.enum(['nvlink', 'pcie', 'c2c', 'xgmi', 'numa-local', 'node', 'sys']),
  topo: z.string().nullable(), // the nvidia-smi class the edge came from (NV18, PIX, SYS, ...)
  bandwidthClass: z.string(),
  bytesPerSecond: z.number().nullable(),
});
export const TopologySchema = z.object({
  nodes: z.array(TopologyNodeSchema),
  edges: z.array(TopologyEdgeSchema),
});

export const MachineSchema = z.object({
  schemaVersion: z.literal(1),
  detectedAt: z.string(),
  hostname: z.string(),
  os: z.object({
    platform: z.string(),
    distro: z.string(),
    release: z.string(),
    kernel: z.string(),
    arch: z.string(),
  }),
  cpu: CpuSchema,
  memory: MemorySchema,
  gpus: z.array(GpuSchema),
  gpuStatus: z.object({
    driver: z.enum(['nvidia', 'amd', 'none']),
    message: z.string(), // e.g. "no NVIDIA driver found (nvidia-smi not on PATH)"
  }),
  superchip: z.object({ kind: z.string(), description: z.string() }).nullable(), // GH200 / GB200 detection
  disks: z.array(DiskSchema),
  warnings: z.array(WarningSchema),
  // Hash of hostname + CPU model + GPU UUIDs: groups history per machine across detections.
  machineId: z.string(),
  topology: TopologySchema,
  detectionMs: z.number().optional(),
});

export type NumaNode = z.infer<typeof NumaNodeSchema>;
export type Cache = z.infer<typeof CacheSchema>;
export type Cpu = z.infer<typeof CpuSchema>;
export type Memory = z.infer<typeof MemorySchema>;
export type GpuLink = z.infer<typeof GpuLinkSchema>;
export type Gpu = z.infer<typeof GpuSchema>;
export type Disk = z.infer<typeof DiskSchema>;
export type HardwareWarning = z.infer<typeof WarningSchema>;
export type TopologyNode = z.infer<typeof TopologyNodeSchema>;
export type TopologyEdge = z.infer<typeof TopologyEdgeSchema>;
export type Topology = z.infer<typeof TopologySchema>;
export type Machine = z.infer<typeof MachineSchema>;

export const DiskFreeSchema = z.object({
  path: z.string(), // the path asked about, resolved
  freeBytes: z.number(), // available to this (non-root) user
  totalBytes: z.number(),
  writable: z.boolean(),
  device: z.string().nullable(), // block device of the mount, e.g. /dev/nvme0n1p2
  mountpoint: z.string().nullable(),
  isNvme: z.boolean().nullable(),
  exists: z.boolean(), // false: the path's nearest existing parent was measured
});
export type DiskFree = z.infer<typeof DiskFreeSchema>;

// ---- channels of the hardware domain ----
export const hardwareRequests = {
  'hardware/detect': {
    request: z.object({ refresh: z.boolean().optional() }).strict(),
    response: MachineSchema,
  },
  // Free space where ZeRO-Infinity's nvme_path would live.
  'hardware/disk-free': {
    request: z.object({ path: z.string().min(1) }).strict(),
    response: DiskFreeSchema,
  },
} as const;

export const hardwareEvents = {} as const;
