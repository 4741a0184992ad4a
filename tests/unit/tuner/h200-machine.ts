// The Machine of the real 1×H200 host captured in tests/fixtures/hosts/h200-sxm-x86, built by hand
// from the fixture values (lscpu: 16 cores, 1 socket, avx512; meminfo: 131961788 kB;
// nvidia-smi: NVIDIA H200 143771 MiB, PCIe Gen5 x16; lsblk: virtio disks, no NVMe), so the tuner
// tests do not depend on the hardware parsers.
import fs from 'node:fs';
import path from 'node:path';
import type { Machine } from '../../../electron/contract';

export const fixtureDir = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'hosts', 'h200-sxm-x86');

export function h200Machine(): Machine {
  return {
    schemaVersion: 1,
    detectedAt: '2026-12-02T00:00:00.000Z',
    hostname: 'h200-sxm-x86',
    os: { platform: 'linux', distro: 'Ubuntu', release: '22.04', kernel: '6.8', arch: 'x64' },
    cpu: {
      vendor: 'GenuineIntel',
      model: 'Intel(R) Xeon(R) Processor',
      architecture: 'x86_64',
      sockets: 1,
      physicalCores: 16,
      logicalCores: 16,
      threadsPerCore: 1,
      smt: false,
      baseMHz: null,
      maxMHz: null,
      numaNodes: [{ id: 0, cpus: Array.from({ length: 16 }, (_, i) => i), memoryBytes: 131961788 * 1024 }],
      caches: [],
      simd: ['avx2', 'avx512f', 'amx_bf16'],
    },
    memory: {
      totalBytes: 131961788 * 1024,
      availableBytes: 131462292 * 1024,
      hugePages: null,
      transparentHugePages: null,
      lockedMemoryLimitBytes: null,
      lockedMemoryUnlimited: true,
    },
    gpus: [
      {
        index: 0,
        vendor: 'nvidia',
        name: 'NVIDIA H200',
        uuid: 'GPU-00000000-1111-2222-3333-444444444444',
        busId: '00000000:00:06.0',
        memoryBytes: 143771 * 2 ** 20,
        computeCapability: '9.0',
        driverVersion: '580.159.04',
        cudaVersion: null,
        pcie: { gen: 5, width: 16, maxGen: 5, maxWidth: 16 },
        numaNode: 0,
        cpuAffinity: '0-15',
        powerLimitWatts: 700,
        links: [{ kind: 'pcie', peer: 'CPU', topo: null, count: null, bandwidthClass: 'PCIe Gen5 x16 (≈64 GB/s)', bytesPerSecond: 64e9 }],
      },
    ],
    gpuStatus: { driver: 'nvidia', message: '1 NVIDIA GPU' },
    superchip: null,
    disks: [
      { name: 'vda', model: null, transport: 'virtio', sizeBytes: 274877906944, rotational: true, mountpoints: ['/'], isNvme: false },
      {
        name: 'vdb',
        model: null,
        transport: 'virtio',
        sizeBytes: 318423040,
        rotational: true,
        mountpoints: ['/usr/local/nvidia'],
        isNvme: false,
      },
    ],
    warnings: [],
    machineId: 'h200-sxm-x86-fixture',
    topology: { nodes: [], edges: [] },
  } as Machine;
}

export function h200Measurements(): unknown {
  return JSON.parse(fs.readFileSync(path.join(fixtureDir, 'measured-ceilings.json'), 'utf8'));
}
