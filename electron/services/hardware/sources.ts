// The live readers: fill a RawHost from this machine, every source in parallel and async
// (execFile / fs.promises), so the Electron main thread never blocks. No parsing here.
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import si from 'systeminformation';
import { readText, runTool, toolText } from './exec';
import type { SysfsCacheEntry } from './parse/cpu';
import type { RawHost, RawNumaNode } from './raw-host';
import type { RawSi } from './parse/si';

const NODE_DIR = '/sys/devices/system/node';
const CACHE_DIR = '/sys/devices/system/cpu/cpu0/cache';

async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function readNuma(): Promise<RawNumaNode[] | null> {
  const names = (await list(NODE_DIR)).filter((n) => /^node\d+$/.test(n));
  if (!names.length) return null;
  return Promise.all(
    names.map(async (n) => ({
      id: Number(n.slice(4)),
      cpulist: (await readText(path.join(NODE_DIR, n, 'cpulist')))?.trim() ?? '',
      meminfo: await readText(path.join(NODE_DIR, n, 'meminfo')),
    })),
  );
}

async function readCaches(): Promise<SysfsCacheEntry[] | null> {
  const names = (await list(CACHE_DIR)).filter((n) => /^index\d+$/.test(n));
  if (!names.length) return null;
  const read = async (n: string, f: string) => (await readText(path.join(CACHE_DIR, n, f)))?.trim() ?? '';
  return Promise.all(
    names.map(async (n) => ({
      level: await read(n, 'level'),
      type: await read(n, 'type'),
      size: await read(n, 'size'),
      sharedCpuList: await read(n, 'shared_cpu_list'),
    })),
  );
}

/** NUMA node of every PCI device the GPU list may name (sysfs numa_node; -1 = none). */
async function readPciNuma(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const devices = await list('/sys/bus/pci/devices');
  // Only display/3D controllers (class 0x03xxxx): a handful of reads instead of hundreds.
  await Promise.all(
    devices.map(async (d) => {
      const cls = await readText(`/sys/bus/pci/devices/${d}/class`);
      if (!cls || !cls.startsWith('0x03')) return;
      const n = Number((await readText(`/sys/bus/pci/devices/${d}/numa_node`))?.trim());
      if (Number.isFinite(n)) out[d.toLowerCase()] = n;
    }),
  );
  return out;
}

async function readBlockNuma(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const names = (await list('/sys/block')).filter((n) => n.startsWith('nvme'));
  await Promise.all(
    names.map(async (n) => {
      const v = Number(
        (await readText(`/sys/block/${n}/device/numa_node`))?.trim() ?? (await readText(`/sys/block/${n}/device/device/numa_node`))?.trim(),
      );
      if (Number.isFinite(v) && v >= 0) out[n] = v;
    }),
  );
  return out;
}

/**
 * Where nvidia-smi lives: PATH everywhere; on Windows also %WINDIR%\System32 (DCH drivers put
 * nvidia-smi.exe there, usually on PATH) and the NVSMI folder of older drivers (never on PATH).
 * Pure, so tests check the Windows list on Linux.
 */
export function nvidiaSmiCandidates(platform: NodeJS.Platform, env: Record<string, string | undefined>): string[] {
  if (platform !== 'win32') return ['nvidia-smi'];
  const win = env.WINDIR ?? env.SystemRoot ?? 'C:\\Windows';
  const programFiles = env.ProgramW6432 ?? env.ProgramFiles ?? 'C:\\Program Files';
  return [
    'nvidia-smi.exe',
    path.win32.join(win, 'System32', 'nvidia-smi.exe'),
    path.win32.join(programFiles, 'NVIDIA Corporation', 'NVSMI', 'nvidia-smi.exe'),
  ];
}

let nvidiaSmiFile: string | null = null;

async function readNvidiaSmi(): Promise<RawHost['nvidiaSmi']> {
  let last: RawHost['nvidiaSmi'] = { xml: null, error: null, notFound: true };
  for (const file of nvidiaSmiFile ? [nvidiaSmiFile] : nvidiaSmiCandidates(process.platform, process.env)) {
    const r = await runTool(file, ['-q', '-x'], 15_000);
    if (!('error' in r)) {
      nvidiaSmiFile = file;
      return { xml: r.stdout, error: null, notFound: false };
    }
    const notFound = r.error.code === 'ENOENT';
    if (notFound) continue;
    // nvidia-smi prints its reason ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver") on stdout.
    const reason = (r.stdout.trim() || r.error.message).split('\n')[0];
    last = { xml: null, error: reason, notFound: false };
    break;
  }
  return last;
}

/**
 * macOS and Windows: systeminformation's static facts, each call on its own (one failing keeps the
 * others). graphics() runs nvidia-smi synchronously (docs/architecture.md), so it is asked only when our own
 * asynchronous nvidia-smi call found nothing: then it names the adapters (Apple, Intel, AMD) or
 * NVIDIA cards nvidia-smi could not be run for.
 */
async function readSi(nvidia: Promise<RawHost['nvidiaSmi']>): Promise<RawSi> {
  const ok = <T>(p: Promise<T>) => p.catch(() => null);
  const [cpu, mem, diskLayout, blockDevices, graphics] = await Promise.all([
    ok(si.cpu()),
    ok(si.mem()),
    ok(si.diskLayout()),
    // Windows' blockDevices are drive letters that cannot be tied to a physical disk: not asked.
    process.platform === 'win32' ? null : ok(si.blockDevices()),
    nvidia.then((n) => (n.xml ? null : ok(si.graphics().then((g) => g.controllers)))),
  ]);
  return { cpu, mem, graphics, diskLayout, blockDevices } as RawSi;
}

export async function readRawHost(): Promise<RawHost> {
  const nvidia = readNvidiaSmi();
  // The follow-up GPU queries only run when nvidia-smi exists, but start as soon as we know.
  const gpuExtra = nvidia.then(async (n) => {
    if (!n.xml)
      return {
        computeCap: null,
        topo: null,
        nvlink: null,
        rocmSmi: await toolText('rocm-smi', ['--showproductname', '--showmeminfo', 'vram', '--showbus', '--json'], 10_000),
      };
    const [computeCap, topo, nvlink] = await Promise.all([
      toolText(nvidiaSmiFile ?? 'nvidia-smi', ['--query-gpu=index,compute_cap', '--format=csv,noheader']),
      toolText(nvidiaSmiFile ?? 'nvidia-smi', ['topo', '-m']),
      toolText(nvidiaSmiFile ?? 'nvidia-smi', ['nvlink', '-s']),
    ]);
    return { computeCap, topo, nvlink, rocmSmi: null };
  });
  // systeminformation only where the Linux sources are missing (macOS, Windows): ~100 ms a call.
  const linux = process.platform === 'linux';
  const siFacts = linux ? Promise.resolve(null) : readSi(nvidia);
  const lscpu = linux ? toolText('lscpu', ['-J']) : Promise.resolve(null);
  const staticCpu = lscpu.then((text) => (text || !linux ? null : si.cpu().catch(() => null)));
  const [siCpu, siRaw, osInfo, lscpuJson, cpuinfo, meminfo, limits, thp, numa, caches, lsblk, pciNuma, blockNuma, nvidiaSmi, extra] =
    await Promise.all([
      staticCpu,
      siFacts,
      si.osInfo().catch(() => null),
      lscpu,
      readText('/proc/cpuinfo'),
      readText('/proc/meminfo'),
      readText('/proc/self/limits'),
      readText('/sys/kernel/mm/transparent_hugepage/enabled'),
      readNuma(),
      readCaches(),
      toolText('lsblk', ['-J', '-b', '-o', 'NAME,MODEL,TRAN,SIZE,ROTA,MOUNTPOINTS,TYPE']),
      readPciNuma(),
      readBlockNuma(),
      nvidia,
      gpuExtra,
    ]);
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    os: {
      platform: osInfo?.platform ?? process.platform,
      distro: osInfo?.distro ?? '',
      release: osInfo?.release ?? os.release(),
      kernel: osInfo?.kernel ?? os.release(),
      arch: os.arch(),
    },
    staticCpu: siCpu
      ? {
          vendor: siCpu.manufacturer,
          brand: siCpu.brand ? `${siCpu.manufacturer} ${siCpu.brand}`.trim() : siCpu.manufacturer,
          baseMHz: siCpu.speed ? siCpu.speed * 1000 : null,
          maxMHz: siCpu.speedMax ? siCpu.speedMax * 1000 : null,
          sockets: Number(siCpu.processors) || null,
        }
      : null,
    fallbackMemory: { totalBytes: os.totalmem(), availableBytes: os.freemem() },
    fallbackCores: { logical: cpus.length, physical: siCpu?.physicalCores ?? null },
    lscpuJson,
    lscpuText: null,
    cpuinfo,
    meminfo,
    limits,
    thp,
    numa,
    caches,
    nvidiaSmi,
    computeCap: extra.computeCap,
    topo: extra.topo,
    nvlink: extra.nvlink,
    rocmSmi: extra.rocmSmi,
    lsblk,
    pciNuma,
    blockNuma,
    si: siRaw,
  };
}
