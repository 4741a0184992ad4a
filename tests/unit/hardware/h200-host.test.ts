// The whole pipeline on the captured H200 SXM host (real outputs, tests/fixtures/hosts/h200-sxm-x86).
import { describe, expect, it } from 'vitest';
import { MachineSchema } from '../../../electron/contract';
import { buildMachine } from '../../../electron/services/hardware';
import { parseComputeCapCsv, parseNvidiaSmiXml, parseTopoMatrix } from '../../../electron/services/hardware/parse/nvidia-smi';
import { fixtureText, loadHost } from './fixture-host';

describe('h200-sxm-x86 fixture', () => {
  const machine = buildMachine(loadHost('h200-sxm-x86'));

  it('validates against the contract and parses without problems', () => {
    expect(() => MachineSchema.parse(machine)).not.toThrow();
    expect(machine.problems).toEqual([]);
  });

  it('reads the CPU from lscpu -J', () => {
    const { cpu } = machine;
    expect(cpu.vendor).toBe('GenuineIntel');
    expect(cpu.model).toBe('Intel(R) Xeon(R) Processor');
    expect(cpu.architecture).toBe('x86_64');
    expect([cpu.sockets, cpu.physicalCores, cpu.logicalCores, cpu.threadsPerCore, cpu.smt]).toEqual([1, 16, 16, 1, false]);
    expect(cpu.numaNodes).toEqual([{ id: 0, cpus: [...Array(16).keys()], memoryBytes: null, memoryFreeBytes: null }]);
    expect(cpu.simd).toEqual(expect.arrayContaining(['avx2', 'avx512f', 'avx512_bf16', 'amx_bf16', 'amx_tile']));
    expect(cpu.adamSimd).toBe('avx512');
    expect(cpu.hypervisor).toBe('KVM');
    // lscpu prints sums: 768 KiB over 16 instances = 48 KiB L1d per core; one 300 MiB L3.
    expect(cpu.caches.find((c) => c.level === 1 && c.type === 'Data')).toMatchObject({ sizeBytes: 48 * 1024, instances: 16, sharedBy: 1 });
    expect(cpu.caches.find((c) => c.level === 3)).toMatchObject({ sizeBytes: 300 * 1024 ** 2, instances: 1, sharedBy: 16 });
  });

  it('reads memory from /proc/meminfo', () => {
    expect(machine.memory.totalBytes).toBe(131961788 * 1024);
    expect(machine.memory.availableBytes).toBe(131462292 * 1024);
    expect(machine.memory.hugePages).toEqual({ total: 0, free: 0, sizeBytes: 2048 * 1024 });
  });

  it('reads the GPU from nvidia-smi -q -x', () => {
    expect(machine.gpuStatus.driver).toBe('nvidia');
    expect(machine.gpus).toHaveLength(1);
    const gpu = machine.gpus[0];
    expect(gpu).toMatchObject({
      index: 0,
      vendor: 'nvidia',
      name: 'NVIDIA H200',
      uuid: 'GPU-00000000-1111-2222-3333-444444444444',
      busId: '00000000:00:06.0',
      memoryBytes: 143771 * 1024 * 1024,
      computeCapability: '9.0',
      driverVersion: '580.159.04',
      cudaVersion: '13.0',
      pcie: { gen: 5, width: 16, maxGen: 5, maxWidth: 16 },
      powerLimitWatts: 700,
      architecture: 'Hopper',
      c2cMode: false,
      numaNode: 0, // from topo -m "NUMA Affinity"
      cpuAffinity: '0-15',
    });
    expect(gpu.links).toEqual([
      {
        kind: 'pcie',
        peer: 'NUMA0',
        topo: null,
        count: null,
        bandwidthClass: 'PCIe Gen5 x16 (≈63 GB/s each way)',
        bytesPerSecond: 3.938 * 16 * 1e9,
      },
    ]);
  });

  it('agrees with the compute capability nvidia-smi --query-gpu reported on the same host', () => {
    // nvidia-smi-query.csv column 7 is compute_cap (9.0), as captured.
    const csv = fixtureText('h200-sxm-x86', 'nvidia-smi-query.csv') as string;
    const cells = csv
      .trim()
      .split(',')
      .map((c) => c.trim());
    expect(cells[6]).toBe('9.0');
    expect(parseComputeCapCsv(`0, ${cells[6]}\n`).get(0)).toBe(machine.gpus[0].computeCapability);
  });

  it('reads disks from old-style lsblk (mountpoint, not mountpoints) and skips zram', () => {
    expect(machine.disks.map((d) => d.name)).toEqual(['vda', 'vdb']);
    expect(machine.disks[0]).toMatchObject({ transport: 'virtio', sizeBytes: 274877906944, mountpoints: ['/'], isNvme: false });
  });

  it('has a topology the UI can draw', () => {
    expect(machine.topology.nodes.map((n) => n.id)).toEqual(['socket0', 'numa0', 'gpu0']);
    expect(machine.topology.edges).toEqual([
      expect.objectContaining({ from: 'gpu0', to: 'numa0', kind: 'pcie', bandwidthClass: 'PCIe Gen5 x16 (≈63 GB/s each way)' }),
    ]);
  });

  it('warns about what matters on this host and nothing else', () => {
    const ids = machine.warnings.map((w) => w.id);
    expect(ids).toContain('no-nvme');
    expect(ids).toContain('host-ram-70b');
    expect(ids).toContain('virtual-machine');
    expect(ids).not.toContain('smt-on');
    expect(ids.some((i) => i.startsWith('pcie-'))).toBe(false);
    for (const w of machine.warnings) expect(w.fix.length).toBeGreaterThan(10);
  });

  it('derives a stable machine id from hostname, CPU model and GPU UUIDs', () => {
    const again = buildMachine(loadHost('h200-sxm-x86'));
    expect(again.machineId).toBe(machine.machineId);
    expect(machine.machineId).toMatch(/^[0-9a-f]{16}$/);
    const other = buildMachine(loadHost('h200-sxm-x86', { hostname: 'other' }));
    expect(other.machineId).not.toBe(machine.machineId);
  });

  it('parses the topo -m matrix of this host', () => {
    const topo = parseTopoMatrix(fixtureText('h200-sxm-x86', 'nvidia-smi-topo-m.txt') as string);
    expect(topo.devices).toEqual(['GPU0']);
    expect(topo.rows[0]).toMatchObject({ name: 'GPU0', cpuAffinity: '0-15', numaAffinity: '0', gpuNumaId: null });
  });

  it('handles an empty nvidia-smi nvlink -s output (single GPU, no NVLink)', () => {
    expect(fixtureText('h200-sxm-x86', 'nvidia-smi-nvlink.txt')).toBe('');
    expect(parseNvidiaSmiXml(fixtureText('h200-sxm-x86', 'nvidia-smi-q.xml') as string).gpus).toHaveLength(1);
  });
});
