// Detection on macOS and Windows: the systeminformation parsers and nvidia-smi on outputs posted
// from such machines (tests/fixtures/hosts/{windows,macos}-workstation, si-mem-shape: SOURCE.md
// names each post). The posts are console.log text; objectFrom() reads them as JS literals.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MachineSchema } from '../../../electron/contract';
import { buildMachine, computeWarnings } from '../../../electron/services/hardware';
import { parseNvidiaSmiXml } from '../../../electron/services/hardware/parse/nvidia-smi';
import {
  cpuFromSi,
  disksFromSi,
  memoryFromSi,
  nvidiaGpusFromSi,
  otherAdapters,
  type RawSi,
} from '../../../electron/services/hardware/parse/si';
import { nvidiaSmiCandidates } from '../../../electron/services/hardware/sources';
import type { RawHost } from '../../../electron/services/hardware';
import { formatMachine } from '../../../electron/cli/commands/hardware';
import { fixtureText } from './fixture-host';

/** A posted console.log object as a value: the text as posted, evaluated as a JS literal. */
function objectFrom(text: string): any {
  // A line break GitHub put inside a quoted string (si-disklayout.txt) is not part of the value.
  const joined = text.replace(/'([^'\n]*)\n([^'\n]*)'/g, "'$1$2'").trim();
  return vm.runInNewContext(`(${joined})`);
}
const read = (host: string, file: string) => fixtureText(host, file) as string;
const winCpu = JSON.parse(read('windows-workstation', 'si-cpu.json'));
const winControllers = objectFrom(`{${read('windows-workstation', 'si-graphics-controllers.txt')}}`).controllers;
const winDisk = objectFrom(read('windows-workstation', 'si-disklayout.txt').replace(/\]\s*$/, ''));
const macCpu = objectFrom(read('macos-workstation', 'si-cpu.txt'));
const macDisk0 = objectFrom(read('macos-workstation', 'si-blockdevices-disk0.txt'));
const macControllers = objectFrom(`{${read('macos-workstation', 'si-graphics-controllers.txt')}}`).controllers;
const siMem = objectFrom(read('si-mem-shape', 'si-mem.txt'));

/** A host where only systeminformation (and maybe nvidia-smi) answered, as on macOS/Windows. */
function foreignHost(platform: string, arch: string, si: RawSi, xml: string | null = null): RawHost {
  return {
    hostname: `${platform}-fixture`,
    os: { platform, distro: 'fixture', release: '', kernel: '', arch },
    staticCpu: null,
    fallbackMemory: { totalBytes: 16 * 1024 ** 3, availableBytes: null },
    fallbackCores: { logical: 4, physical: null },
    lscpuJson: null,
    lscpuText: null,
    cpuinfo: null,
    meminfo: null,
    limits: null,
    thp: null,
    numa: null,
    caches: null,
    nvidiaSmi: xml ? { xml, error: null, notFound: false } : { xml: null, error: null, notFound: true },
    computeCap: null,
    topo: null,
    nvlink: null,
    rocmSmi: null,
    lsblk: null,
    pciNuma: {},
    blockNuma: {},
    si,
  };
}

describe('si.cpu() on Windows (systeminformation#633, i5-12600K)', () => {
  const cpu = cpuFromSi(winCpu, 'x86_64', 1);
  it('joins the split name, counts hybrid cores, keeps the base clock', () => {
    expect(cpu.model).toBe('12th Gen Intel® Core™ i5-12600K');
    expect(cpu.vendor).toBe('GenuineIntel');
    expect(cpu).toMatchObject({
      logicalCores: 16,
      physicalCores: 10,
      sockets: 1,
      threadsPerCore: 2,
      smt: true,
      baseMHz: 3690,
      maxMHz: 3690,
    });
  });
  it('says NUMA and the SIMD path are unknown instead of guessing (WMI flags carry no AVX)', () => {
    expect(cpu.numaNodes).toEqual([]);
    expect(cpu.simd).toEqual([]);
    expect(cpu.adamSimd).toBe('unknown');
  });
  it('drops L1 figures that are not byte sizes, keeps L2/L3 totals', () => {
    expect(cpu.caches).toEqual([
      { level: 2, type: 'Unified', sizeBytes: 7864320, sharedBy: null, instances: null },
      { level: 3, type: 'Unified', sizeBytes: 20971520, sharedBy: null, instances: null },
    ]);
  });
});

describe('si.cpu() on macOS (systeminformation#864, Apple M1)', () => {
  const cpu = cpuFromSi(macCpu, 'aarch64', 1);
  it('names the chip, 8 cores without SMT, NEON as the one certain SIMD', () => {
    expect(cpu).toMatchObject({
      vendor: 'Apple',
      model: 'Apple M1',
      logicalCores: 8,
      physicalCores: 8,
      smt: false,
      threadsPerCore: 1,
      baseMHz: 2400,
    });
    expect(cpu.simd).toEqual(['neon']);
    expect(cpu.adamSimd).toBe('scalar');
    expect(cpu.caches.map((c) => `L${c.level}${c.type[0]}:${c.sizeBytes}`)).toEqual(['L1D:131072', 'L1I:65536', 'L2U:4194304']);
  });
});

describe('si.mem() shape (systeminformation#789; a Linux post, same keys everywhere)', () => {
  it('takes total and available; hugepages, THP and the pinned limit are unknown', () => {
    expect(memoryFromSi(siMem, { totalBytes: 1, availableBytes: null })).toEqual({
      totalBytes: 7910309888,
      availableBytes: 4967460864,
      hugePages: null,
      transparentHugePages: null,
      lockedMemoryLimitBytes: null,
      lockedMemoryUnlimited: false,
    });
    expect(memoryFromSi(null, { totalBytes: 5, availableBytes: 3 })).toMatchObject({ totalBytes: 5, availableBytes: 3 });
  });
});

describe('GPUs without nvidia-smi', () => {
  it('Windows si.graphics (systeminformation#790): the GTX 1650 with the fields si merged from nvidia-smi', () => {
    const gpus = nvidiaGpusFromSi(winControllers);
    expect(gpus).toHaveLength(1);
    expect(gpus[0]).toMatchObject({
      index: 0,
      vendor: 'nvidia',
      name: 'NVIDIA GeForce GTX 1650',
      busId: '00000000:01:00.0',
      memoryBytes: 4096 * 1024 ** 2,
      driverVersion: '512.78',
      computeCapability: null,
      uuid: null,
    });
    expect(otherAdapters(winControllers)).toEqual(['Intel(R) UHD Graphics']);
  });
  it('Intel Mac si.graphics (systeminformation#348): no CUDA device, the adapters are named', () => {
    expect(nvidiaGpusFromSi(macControllers)).toEqual([]);
    expect(otherAdapters(macControllers)).toEqual(['Intel UHD Graphics 630', 'Radeon Pro 560X']);
  });
});

describe('nvidia-smi -q -x on Windows (telegraf testdata rtx-3080-v12.xml, WDDM)', () => {
  const report = parseNvidiaSmiXml(read('windows-workstation', 'nvidia-smi-q.xml'));
  it('reads the same GPU facts as on Linux', () => {
    expect(report).toMatchObject({ driverVersion: '536.40', cudaVersion: '12.2' });
    expect(report.gpus).toHaveLength(1);
    expect(report.gpus[0]).toMatchObject({
      index: 0, // minor_number is N/A on Windows: the position is the index
      name: 'NVIDIA GeForce RTX 3080',
      uuid: 'GPU-19d6d965-2acc-f646-00f8-4c76979aabb4',
      busId: '00000000:04:00.0',
      memoryBytes: 10240 * 1024 ** 2,
      computeCapability: '8.6',
      pcie: { gen: 4, width: 16, maxGen: 4, maxWidth: 16 },
      powerLimitWatts: 336,
    });
  });
  it('looks for nvidia-smi.exe on PATH, in System32 and in the old NVSMI folder', () => {
    expect(nvidiaSmiCandidates('win32', { WINDIR: 'C:\\Windows', ProgramFiles: 'C:\\Program Files' })).toEqual([
      'nvidia-smi.exe',
      'C:\\Windows\\System32\\nvidia-smi.exe',
      'C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe',
    ]);
    expect(nvidiaSmiCandidates('linux', {})).toEqual(['nvidia-smi']);
  });
});

describe('disks from si.diskLayout / si.blockDevices', () => {
  it('Windows diskLayout (systeminformation#542): an SSD, its PnP id not a usable name, not NVMe', () => {
    expect(disksFromSi([winDisk], null)).toEqual([
      {
        name: 'disk0',
        model: 'SanDisk SSD PLUS 120GB',
        transport: 'raid',
        sizeBytes: 120039736320,
        rotational: false,
        mountpoints: [],
        isNvme: false,
      },
    ]);
  });
  it('macOS blockDevices (systeminformation#781): disk0 from the whole-disk entry; PCI is not taken for NVMe', () => {
    const part = { name: '/dev/disk1s1', identifier: 'disk0s2', type: 'part', mount: '/', size: 1 }; // constructed partition row
    expect(disksFromSi([], [macDisk0, part])).toEqual([
      {
        name: 'disk0',
        model: 'APPLE SSD SM0512F',
        transport: 'pci',
        sizeBytes: 500277790720,
        rotational: false,
        mountpoints: ['/'],
        isNvme: false,
      },
    ]);
  });
  it('NVMe where diskLayout says so (constructed: no public Windows NVMe capture was found)', () => {
    const [d] = disksFromSi(
      [{ device: '\\\\.\\PHYSICALDRIVE0', type: 'SSD', name: 'Samsung SSD 980 PRO 1TB', size: 1e12, interfaceType: 'NVMe' }],
      null,
    );
    expect(d).toMatchObject({ name: 'PHYSICALDRIVE0', transport: 'nvme', isNvme: true });
  });
  it('NVMe behind interfaceType SCSI, known by its PnP id (the device string posted in systeminformation#729)', () => {
    const [d] = disksFromSi(
      [
        {
          device: 'SCSI\\DISK&VEN_NVME&PROD_HFM001TD3JX013N\\5&EB4279F&0&000000',
          type: 'SSD',
          name: 'HFM001TD3JX013N',
          size: 1024209543168,
          interfaceType: 'SCSI',
        },
      ],
      null,
    );
    expect(d).toMatchObject({ name: 'disk0', transport: 'scsi', isNvme: true });
  });
});

describe('whole machines (each built from separate posts, see SOURCE.md)', () => {
  it('Windows: Machine from si.cpu + si.mem + diskLayout + nvidia-smi.exe XML, with platform and unknown-fact warnings', () => {
    const raw = foreignHost(
      'Windows',
      'x64',
      { cpu: winCpu, mem: siMem, graphics: null, diskLayout: [winDisk], blockDevices: null },
      read('windows-workstation', 'nvidia-smi-q.xml'),
    );
    const { problems, ...m } = buildMachine(raw, '2026-12-03T00:00:00Z');
    expect(problems).toEqual([]);
    expect(() => MachineSchema.parse(m)).not.toThrow();
    expect(m.cpu.model).toBe('12th Gen Intel® Core™ i5-12600K');
    expect(m.gpus.map((g) => g.name)).toEqual(['NVIDIA GeForce RTX 3080']);
    expect(m.gpuStatus).toEqual({ driver: 'nvidia', message: 'NVIDIA driver 536.40, CUDA 12.2: 1 GPU(s)' });
    expect(m.memory).toMatchObject({ totalBytes: 7910309888, lockedMemoryLimitBytes: null, lockedMemoryUnlimited: false });
    const ids = m.warnings.map((w) => w.id);
    expect(ids).toEqual(expect.arrayContaining(['platform-windows', 'numa-pinned-unknown', 'cpu-simd-unknown', 'no-nvme']));
    expect(ids).not.toContain('pinned-memory-limit');
    expect(ids).not.toContain('cpu-adam-no-avx512'); // the flags do not say, so no claim
    expect(m.warnings.find((w) => w.id === 'platform-windows')?.message).toMatch(/no NCCL.*async_io.*CPU Adam/);
    // `detect` prints the unknowns as unknown, not as numbers
    const text = formatMachine(m, null).join('\n');
    expect(text).toMatch(/NUMA +unknown/);
    expect(text).toMatch(/locked-memory limit unknown/);
    expect(text).toMatch(/CPU Adam path unknown/);
  });
  it('Windows without nvidia-smi: the NVIDIA card si saw, with the missing facts said', () => {
    const raw = foreignHost('Windows', 'x64', { cpu: winCpu, mem: null, graphics: winControllers, diskLayout: null, blockDevices: null });
    const m = buildMachine(raw);
    expect(m.gpus).toHaveLength(1);
    expect(m.gpuStatus.driver).toBe('nvidia');
    expect(m.gpuStatus.message).toMatch(/nvidia-smi was not found: compute capability, PCIe link and UUID are unknown/);
  });
  it('macOS (Apple M1 cpu, Intel-Mac graphics, disk0): no CUDA GPU, planning-only warning', () => {
    const raw = foreignHost('darwin', 'arm64', {
      cpu: macCpu,
      mem: siMem,
      graphics: macControllers,
      diskLayout: null,
      blockDevices: [macDisk0],
    });
    const { problems, ...m } = buildMachine(raw);
    expect(problems).toEqual([]);
    expect(() => MachineSchema.parse(m)).not.toThrow();
    expect(m.gpus).toEqual([]);
    expect(m.gpuStatus).toEqual({
      driver: 'none',
      message: 'no CUDA GPU: Intel UHD Graphics 630, Radeon Pro 560X are not usable by PyTorch CUDA / DeepSpeed',
    });
    expect(m.disks.map((d) => d.name)).toEqual(['disk0']);
    expect(m.cpu.numaNodes).toEqual([]);
    const mac = m.warnings.find((w) => w.id === 'platform-macos');
    expect(mac?.severity).toBe('warning');
    expect(mac?.message).toMatch(/no CUDA.*Planning for another machine, history, compare and reports work fully here/);
  });
  it('Linux machines get no platform warning (the Linux path is unchanged)', () => {
    const base = buildMachine(foreignHost('linux', 'x64', { cpu: null, mem: null, graphics: null, diskLayout: null, blockDevices: null }));
    expect(
      computeWarnings(base)
        .map((w) => w.id)
        .filter((id) => id.startsWith('platform') || id === 'numa-pinned-unknown'),
    ).toEqual([]);
  });
});
