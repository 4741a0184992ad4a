// Hardware detection. systeminformation for static CPU/OS facts; GPUs, NUMA and the rest are
// read directly (see DESIGN.md: systeminformation's limits).
import os from 'node:os';
import si from 'systeminformation';
import type { Machine } from '../../contract';
import { detectGpus } from './gpus';

export async function detectMachine(): Promise<Machine> {
  const started = performance.now();
  const [cpu, osInfo, mem, gpuResult] = await Promise.all([
    si.cpu(),
    si.osInfo(),
    si.mem(),
    detectGpus(),
  ]);
  const logical = os.cpus().length || cpu.cores;
  const physical = cpu.physicalCores || logical;
  const threadsPerCore = Math.max(1, Math.round(logical / Math.max(1, physical)));
  const machine: Machine = {
    schemaVersion: 1,
    detectedAt: new Date().toISOString(),
    hostname: os.hostname(),
    os: {
      platform: osInfo.platform,
      distro: osInfo.distro,
      release: osInfo.release,
      kernel: osInfo.kernel,
      arch: os.arch(),
    },
    cpu: {
      vendor: cpu.manufacturer,
      model: cpu.brand ? `${cpu.manufacturer} ${cpu.brand}`.trim() : cpu.manufacturer,
      architecture: os.machine(),
      sockets: Number(cpu.processors) || 1,
      physicalCores: physical,
      logicalCores: logical,
      threadsPerCore,
      smt: threadsPerCore > 1,
      baseMHz: cpu.speed ? cpu.speed * 1000 : null,
      maxMHz: cpu.speedMax ? cpu.speedMax * 1000 : null,
      numaNodes: [],
      caches: [],
      simd: [],
    },
    memory: {
      totalBytes: mem.total,
      availableBytes: mem.available,
      hugePages: null,
      transparentHugePages: null,
      lockedMemoryLimitBytes: null,
      lockedMemoryUnlimited: false,
    },
    gpus: gpuResult.gpus,
    gpuStatus: gpuResult.status,
    superchip: null,
    disks: [],
    warnings: [],
  };
  machine.detectionMs = Math.round(performance.now() - started);
  return machine;
}
