// The parsers on the other captured hosts: this CI VM (no GPU), an 8-GPU HGX H100 topo matrix,
// a 2-GPU PCIe topo matrix and GH200 lscpu text (sources in each folder's SOURCE.md).
import { describe, expect, it } from 'vitest';
import { MachineSchema } from '../../../electron/contract';
import { buildMachine } from '../../../electron/services/hardware';
import { buildTopology } from '../../../electron/services/hardware/topology';
import { attachLinks } from '../../../electron/services/hardware/links';
import { parseNvidiaSmiXml, parseTopoMatrix } from '../../../electron/services/hardware/parse/nvidia-smi';
import { fixtureText, loadHost } from './fixture-host';

describe('ci-vm-no-gpu fixture (this machine, captured)', () => {
  const machine = buildMachine(loadHost('ci-vm-no-gpu'));
  it('is a valid Machine with no GPUs and a clear driver state', () => {
    expect(() => MachineSchema.parse(machine)).not.toThrow();
    expect(machine.gpus).toEqual([]);
    expect(machine.gpuStatus).toEqual({ driver: 'none', message: 'no NVIDIA driver found (nvidia-smi is not on PATH)' });
    expect(machine.warnings.map((w) => w.id)).toContain('no-gpu');
  });
  it('reads NUMA memory and caches from sysfs, the memlock limit from /proc/self/limits', () => {
    expect(machine.cpu.numaNodes).toHaveLength(1);
    expect(machine.cpu.numaNodes[0].cpus).toEqual([0, 1]);
    expect(machine.cpu.numaNodes[0].memoryBytes).toBeGreaterThan(1024 ** 3);
    expect(machine.cpu.caches.map((c) => `L${c.level}${c.type[0]}`)).toEqual(['L1D', 'L1I', 'L2U', 'L3U']);
    expect(machine.cpu.caches[3]).toMatchObject({ sizeBytes: 32 * 1024 ** 2, sharedBy: 2, instances: 1 });
    expect(machine.memory.lockedMemoryLimitBytes).toBe(8388608);
    expect(machine.memory.transparentHugePages).toBe('madvise');
    expect(machine.warnings.map((w) => w.id)).toContain('pinned-memory-limit');
  });
  it('reads new-style lsblk (mountpoints arrays)', () => {
    expect(machine.disks).toEqual([expect.objectContaining({ name: 'vda', mountpoints: ['/run/netns', '/'], isNvme: false })]);
  });
});

describe('dgx-h100-8gpu topo -m (NVIDIA/nccl#1264)', () => {
  const topo = parseTopoMatrix(fixtureText('dgx-h100-8gpu', 'nvidia-smi-topo-m.txt') as string);
  it('reads every GPU row, affinity and NUMA node despite the extra empty cell', () => {
    expect(topo.devices.slice(0, 8)).toEqual(['GPU0', 'GPU1', 'GPU2', 'GPU3', 'GPU4', 'GPU5', 'GPU6', 'GPU7']);
    const gpuRows = topo.rows.filter((r) => r.name.startsWith('GPU'));
    expect(gpuRows).toHaveLength(8);
    expect(gpuRows[0]).toMatchObject({ cpuAffinity: '0-55,112-167', numaAffinity: '0', gpuNumaId: null });
    expect(gpuRows[7]).toMatchObject({ cpuAffinity: '56-111,168-223', numaAffinity: '1' });
    expect(gpuRows[3].cells.GPU5).toBe('NV18');
    expect(gpuRows[0].cells.NIC0).toBe('PIX');
  });
  it('turns NV18 into NVLink links and a two-node topology', () => {
    // Eight GPUs cloned from the real H200 XML entry (only the index and UUID differ), placed by this matrix.
    const one = parseNvidiaSmiXml(fixtureText('h200-sxm-x86', 'nvidia-smi-q.xml') as string).gpus[0];
    const gpus = Array.from({ length: 8 }, (_, i) => ({ ...one, index: i, uuid: `GPU-${i}` }));
    const linked = attachLinks(gpus, topo, [], false);
    expect(linked[0].links.filter((l) => l.kind === 'nvlink')).toHaveLength(7);
    expect(linked[0].links[0]).toMatchObject({
      kind: 'nvlink',
      peer: 'GPU1',
      count: 18,
      bandwidthClass: 'NVLink ×18 (≈900 GB/s bidirectional)',
      bytesPerSecond: 450e9,
    });
    expect(linked.map((g) => g.numaNode)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    const cpu = buildMachine(loadHost('h200-sxm-x86')).cpu;
    const twoSockets = {
      ...cpu,
      sockets: 2,
      numaNodes: [
        { id: 0, cpus: [0, 1], memoryBytes: null },
        { id: 1, cpus: [2, 3], memoryBytes: null },
      ],
    };
    const t = buildTopology(twoSockets, linked, []);
    expect(t.edges.filter((e) => e.kind === 'nvlink')).toHaveLength(28); // 8 choose 2
    expect(t.edges.find((e) => e.from === 'numa0' && e.to === 'numa1')?.kind).toBe('sys');
    expect(t.nodes.find((n) => n.id === 'gpu5')?.parent).toBe('numa1');
    expect(t.nodes.find((n) => n.id === 'numa1')?.parent).toBe('socket1');
  });
});

describe('pcie-2x5090 topo -m (noonghunna/club-3090#1229)', () => {
  it('reads PHB between the two GPUs', () => {
    const topo = parseTopoMatrix(fixtureText('pcie-2x5090', 'nvidia-smi-topo-m.txt') as string);
    expect(topo.devices).toEqual(['GPU0', 'GPU1']);
    expect(topo.rows.map((r) => [r.name, r.cells.GPU0, r.cells.GPU1, r.cpuAffinity, r.numaAffinity])).toEqual([
      ['GPU0', 'X', 'PHB', '0-63', '0'],
      ['GPU1', 'PHB', 'X', '0-63', '0'],
    ]);
  });
  it('accepts a copy whose tabs became spaces', () => {
    const spaced = (fixtureText('pcie-2x5090', 'nvidia-smi-topo-m.txt') as string).replace(/\t/g, '    ');
    const topo = parseTopoMatrix(spaced);
    expect(topo.rows[1]).toMatchObject({ name: 'GPU1', cpuAffinity: '0-63', numaAffinity: '0' });
    expect(topo.rows[1].cells.GPU0).toBe('PHB');
  });
});

describe('gh200-grace-hopper lscpu text (OpenBLAS#4431, xpu-perf#129)', () => {
  const machine = buildMachine(loadHost('gh200-grace-hopper'));
  it('reads Grace: aarch64 Neoverse-V2, 72 cores, SVE2, scalar CPU Adam path', () => {
    expect(machine.cpu).toMatchObject({
      architecture: 'aarch64',
      vendor: 'ARM',
      model: 'Neoverse-V2',
      sockets: 1,
      physicalCores: 72,
      logicalCores: 72,
      smt: false,
      maxMHz: 3474,
      adamSimd: 'scalar',
    });
    expect(machine.cpu.simd).toEqual(expect.arrayContaining(['neon', 'sve', 'sve2', 'svebf16', 'bf16']));
    expect(machine.cpu.flags).toContain('dgh'); // the wrapped Flags line was joined
  });
  it('keeps only the NUMA node that has CPUs in the picture (the others are memory placeholders)', () => {
    expect(machine.cpu.numaNodes).toHaveLength(9);
    expect(machine.cpu.numaNodes.filter((n) => n.cpus.length).map((n) => n.id)).toEqual([0]);
    expect(machine.topology.nodes.filter((n) => n.kind === 'numa').map((n) => n.id)).toEqual(['numa0']);
    expect(machine.warnings.map((w) => w.id)).toContain('cpu-adam-scalar-arm');
  });
});
