// The machine a plan for a Slurm partition is for: one node of the partition as Slurm describes it
// (CPUs, RealMemory, gres GPUs and their type), in the shape `plan --machine` reads. Slurm does not
// say which CPU model or link a node has: the GPU's figures come from the catalogue entry its gres
// type names (resources/presets/gpus.json), and the machine says where every figure came from.
import crypto from 'node:crypto';
import type { Machine, SlurmNodeShape, SlurmTarget } from '../../../contract';
import { catalog } from '../../tuner';

export function shapeToMachine(shape: SlurmNodeShape & { detectedAt?: string }, target: SlurmTarget): Machine {
  const type = (target.gpuType ?? shape.gpuType ?? '').toLowerCase();
  const gpuCount = target.gpusPerNode > 0 ? Math.min(target.gpusPerNode, shape.gpus || target.gpusPerNode) : 0;
  const entry = type ? catalog().gpus.find((g) => g.match.some((m) => type.includes(m) || m.includes(type))) : undefined;
  const cpus = shape.cpus ?? 1;
  const name = entry ? entry.label : type ? `NVIDIA ${type.toUpperCase()}` : 'NVIDIA GPU';
  const gpus: Machine['gpus'] = Array.from({ length: gpuCount }, (_, index) => ({
    index,
    vendor: 'nvidia',
    name,
    uuid: null,
    busId: null,
    memoryBytes: entry?.memoryBytes ?? 80 * 2 ** 30,
    computeCapability: null,
    driverVersion: null,
    cudaVersion: null,
    pcie: { gen: null, width: null, maxGen: null, maxWidth: null },
    numaNode: null,
    cpuAffinity: null,
    powerLimitWatts: null,
    links: entry
      ? [
          {
            kind: entry.hostLink.kind,
            peer: 'CPU',
            topo: null,
            count: null,
            bandwidthClass: entry.hostLink.label,
            bytesPerSecond: entry.hostLink.bytesPerSecond,
          },
        ]
      : [],
  }));
  const id = crypto
    .createHash('sha256')
    .update(`slurm/${target.name}/${shape.partition}/${cpus}/${shape.memBytes}/${name}×${gpuCount}`)
    .digest('hex')
    .slice(0, 16);
  return {
    schemaVersion: 1,
    detectedAt: shape.detectedAt ?? new Date().toISOString(),
    hostname: `${target.name}/${shape.partition}`,
    os: { platform: 'linux', distro: 'unknown (Slurm node)', release: '', kernel: '', arch: 'unknown' },
    cpu: {
      vendor: 'unknown',
      model: `${cpus} CPUs per node (Slurm)`,
      architecture: 'unknown',
      sockets: 1,
      physicalCores: cpus,
      logicalCores: cpus,
      threadsPerCore: 1,
      smt: false,
      baseMHz: null,
      maxMHz: null,
      numaNodes: [],
      caches: [],
      simd: [],
    },
    memory: {
      totalBytes: shape.memBytes ?? 0,
      availableBytes: shape.memBytes,
      hugePages: null,
      transparentHugePages: null,
      lockedMemoryLimitBytes: null,
      lockedMemoryUnlimited: true,
    },
    gpus,
    gpuStatus: {
      driver: gpuCount ? 'nvidia' : 'none',
      message: gpuCount
        ? `from Slurm: ${gpuCount} × gres gpu${type ? `:${type}` : ''} per node${entry ? ` (figures of the catalogue's ${entry.label})` : ' (no catalogue entry matches the type: 80 GiB assumed)'}`
        : 'from Slurm: no GPUs asked for on this partition',
    },
    superchip: null,
    disks: [],
    warnings: [
      {
        id: 'slurm-shape',
        severity: 'info',
        message: `Planned from Slurm's description of partition ${shape.partition} (${shape.nodes.length} node(s)), not a detection on a node: CPU model, links and NVMe are unknown.`,
        fix: 'Measure on a node (a run there) to replace the catalogue figures with measured ones.',
      },
    ],
    machineId: `slurm-${id}`,
    topology: { nodes: [], edges: [] },
  };
}
