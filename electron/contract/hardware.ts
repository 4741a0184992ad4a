// Hardware and environment shapes: what `hardware/detect` returns and `detect --json` prints.
// Runtime schemas (zod) so every process boundary can validate, and types inferred from them.
import { z } from 'zod';

export const NumaNodeSchema = z.object({
  id: z.number().int(),
  cpus: z.array(z.number().int()),
  memoryBytes: z.number().nullable(),
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
});

export const MemorySchema = z.object({
  totalBytes: z.number(),
  availableBytes: z.number().nullable(),
  hugePages: z
    .object({ total: z.number(), free: z.number(), sizeBytes: z.number() })
    .nullable(),
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
  superchip: z
    .object({ kind: z.string(), description: z.string() })
    .nullable(), // GH200 / GB200 detection
  disks: z.array(DiskSchema),
  warnings: z.array(z.string()),
  detectionMs: z.number().optional(),
});

export type NumaNode = z.infer<typeof NumaNodeSchema>;
export type Cache = z.infer<typeof CacheSchema>;
export type Cpu = z.infer<typeof CpuSchema>;
export type Memory = z.infer<typeof MemorySchema>;
export type GpuLink = z.infer<typeof GpuLinkSchema>;
export type Gpu = z.infer<typeof GpuSchema>;
export type Disk = z.infer<typeof DiskSchema>;
export type Machine = z.infer<typeof MachineSchema>;

// ---- channels of the hardware domain ----
export const hardwareRequests = {
  'hardware/detect': {
    request: z.object({ refresh: z.boolean().optional() }).strict(),
    response: MachineSchema,
  },
} as const;

export const hardwareEvents = {} as const;
