// Pure parsers and pure decisions on small inputs. Inputs written here are labelled as such;
// everything from a real machine lives under tests/fixtures/hosts.
import { describe, expect, it } from 'vitest';
import { buildMachine } from '../../../electron/services/hardware';
import { normaliseBusId } from '../../../electron/services/hardware/build';
import { mountFor, parseMountinfo } from '../../../electron/services/hardware/disk-free';
import { parseLsblk } from '../../../electron/services/hardware/parse/disks';
import { parseLockedMemoryLimit } from '../../../electron/services/hardware/parse/memory';
import { capabilityFromArchitecture, parseComputeCapCsv, parseNvlinkStatus } from '../../../electron/services/hardware/parse/nvidia-smi';
import { parseRocmSmiJson } from '../../../electron/services/hardware/parse/rocm-smi';
import { formatCpuList, parseCpuList, parseSize } from '../../../electron/services/hardware/parse/util';
import { detectSuperchip } from '../../../electron/services/hardware/superchip';
import { computeWarnings } from '../../../electron/services/hardware/warnings';
import { fixtureText, loadHost } from './fixture-host';

describe('small parsers', () => {
  it('cpu lists and sizes', () => {
    expect(parseCpuList('0-3,8,10-11')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(parseCpuList('')).toEqual([]);
    expect(formatCpuList([0, 1, 2, 3, 8, 10, 11])).toBe('0-3,8,10-11');
    expect(parseSize('32K')).toBe(32768);
    expect(parseSize('300 MiB (1 instance)')).toBe(300 * 1024 ** 2);
  });
  it('locked memory limit: bytes or unlimited', () => {
    expect(parseLockedMemoryLimit(fixtureText('ci-vm-no-gpu', 'proc-self-limits.txt') as string)).toEqual({
      bytes: 8388608,
      unlimited: false,
    });
    expect(parseLockedMemoryLimit('Max locked memory         unlimited            unlimited            bytes\n')).toEqual({
      bytes: null,
      unlimited: true,
    });
  });
  it('compute capability from the query CSV, or from the architecture', () => {
    expect(parseComputeCapCsv('0, 9.0\n1, 9.0\n').get(1)).toBe('9.0');
    expect(capabilityFromArchitecture('Ampere', 'NVIDIA A100-SXM4-80GB')).toBe('8.0');
    expect(capabilityFromArchitecture('Ampere', 'NVIDIA GeForce RTX 3090')).toBe('8.6');
    expect(capabilityFromArchitecture('Hopper', 'NVIDIA GH200 480GB')).toBe('9.0');
  });
  it('nvlink -s (layout as nvidia-smi prints it; values written here)', () => {
    const text =
      'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-b)\n\t Link 0: <inactive>\n';
    expect(parseNvlinkStatus(text)).toEqual([
      { gpu: 0, activeLinks: 2, linkGBps: 26.562 },
      { gpu: 1, activeLinks: 0, linkGBps: null },
    ]);
  });
  it('lsblk marks NVMe and keeps partition mountpoints', () => {
    const disks = parseLsblk(
      JSON.stringify({
        blockdevices: [
          {
            name: 'nvme0n1',
            model: 'Samsung SSD 990 PRO 2TB',
            tran: 'nvme',
            size: 2000398934016,
            rota: false,
            type: 'disk',
            mountpoints: [null],
            children: [{ name: 'nvme0n1p1', type: 'part', mountpoints: ['/scratch'] }],
          },
        ],
      }),
    );
    expect(disks[0]).toMatchObject({ isNvme: true, mountpoints: ['/scratch'], rotational: false });
  });
  it('rocm-smi --json cards', () => {
    const gpus = parseRocmSmiJson(
      JSON.stringify({
        card0: { 'Card Series': 'AMD Instinct MI300X', 'VRAM Total Memory (B)': '205822885888', 'PCI Bus': '0000:05:00.0' },
      }),
    );
    expect(gpus[0]).toMatchObject({ vendor: 'amd', name: 'AMD Instinct MI300X', memoryBytes: 205822885888, busId: '0000:05:00.0' });
  });
  it('bus ids and mounts', () => {
    expect(normaliseBusId('00000000:00:06.0')).toBe('0000:00:06.0');
    const mounts = parseMountinfo('22 1 254:0 / / rw - ext4 /dev/vda rw\n30 22 259:1 / /scratch rw - xfs /dev/nvme0n1p1 rw\n');
    expect(mountFor('/scratch/ds', mounts)?.source).toBe('/dev/nvme0n1p1');
    expect(mountFor('/home/me', mounts)?.source).toBe('/dev/vda');
  });
});

describe('superchip detection', () => {
  const grace = { architecture: 'aarch64', model: 'Neoverse-V2', vendor: 'ARM' };
  const h200 = buildMachine(loadHost('h200-sxm-x86')).gpus[0];
  it('GH200 by name, or Grace + Hopper with C2C', () => {
    expect(detectSuperchip(grace, [{ ...h200, name: 'NVIDIA GH200 480GB', c2cMode: true }])?.kind).toBe('GH200');
    expect(detectSuperchip(grace, [{ ...h200, c2cMode: true }])?.kind).toBe('GH200');
  });
  it('not for x86 + H200 over PCIe (the captured host), nor for Grace without a GPU', () => {
    expect(detectSuperchip({ architecture: 'x86_64', model: 'Intel(R) Xeon(R) Processor', vendor: 'GenuineIntel' }, [h200])).toBeNull();
    expect(detectSuperchip(grace, [])).toBeNull();
  });
  it('a GH200 gets a C2C host link instead of PCIe (constructed: the H200 XML renamed, C2C enabled)', () => {
    const raw = loadHost('gh200-grace-hopper', {
      nvidiaSmi: {
        xml: (fixtureText('h200-sxm-x86', 'nvidia-smi-q.xml') as string)
          .replace('<product_name>NVIDIA H200</product_name>', '<product_name>NVIDIA GH200 480GB</product_name>')
          .replace('<c2c_mode>Disabled</c2c_mode>', '<c2c_mode>Enabled</c2c_mode>'),
        error: null,
        notFound: false,
      },
    });
    const m = buildMachine(raw);
    expect(m.superchip?.kind).toBe('GH200');
    expect(m.gpus[0].links.at(-1)).toMatchObject({ kind: 'c2c', bandwidthClass: 'NVLink-C2C (≈900 GB/s bidirectional)' });
    expect(m.topology.edges.find((e) => e.from === 'gpu0')?.kind).toBe('c2c');
    expect(m.warnings.map((w) => w.id)).toContain('superchip');
  });
});

describe('warnings', () => {
  const base = buildMachine(loadHost('h200-sxm-x86'));
  it('a GPU on x8 of x16 and Gen4 of Gen5', () => {
    const gpus = [{ ...base.gpus[0], pcie: { gen: 4, width: 8, maxGen: 5, maxWidth: 16 } }];
    const w = computeWarnings({ ...base, gpus });
    expect(w.find((x) => x.id === 'pcie-width:0')).toMatchObject({ severity: 'warning' });
    expect(w.find((x) => x.id === 'pcie-gen:0')).toMatchObject({ severity: 'info' });
  });
  it('SMT on, unlimited memlock, enough RAM for 70B', () => {
    const w = computeWarnings({
      ...base,
      cpu: { ...base.cpu, smt: true, threadsPerCore: 2 },
      memory: { ...base.memory, totalBytes: 2 * 1024 ** 4, lockedMemoryUnlimited: true, lockedMemoryLimitBytes: null },
    }).map((x) => x.id);
    expect(w).toContain('smt-on');
    expect(w).not.toContain('pinned-memory-limit');
    expect(w).not.toContain('host-ram-70b');
  });
});
