// The live readers: fill a RawHost from this machine, every source in parallel and async
// (execFile / fs.promises), so the Electron main thread never blocks. No parsing here.
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import si from 'systeminformation';
import { readText, runTool, toolText } from './exec';
import type { SysfsCacheEntry } from './parse/cpu';
import type { RawHost, RawNumaNode } from './raw-host';

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
    names.map(async (n) => ({ level: await read(n, 'level'), type: await read(n, 'type'), size: await read(n, 'size'), sharedCpuList: await read(n, 'shared_cpu_list') })),
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
      const v = Number((await readText(`/sys/block/${n}/device/numa_node`))?.trim() ?? (await readText(`/sys/block/${n}/device/device/numa_node`))?.trim());
      if (Number.isFinite(v) && v >= 0) out[n] = v;
    }),
  );
  return out;
}

async function readNvidiaSmi(): Promise<RawHost['nvidiaSmi']> {
  const r = await runTool('nvidia-smi', ['-q', '-x'], 15_000);
  if (!('error' in r)) return { xml: r.stdout, error: null, notFound: false };
  const notFound = r.error.code === 'ENOENT';
  // nvidia-smi prints its reason ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver") on stdout.
  const reason = (r.stdout.trim() || r.error.message).split('\n')[0];
  return { xml: null, error: notFound ? null : reason, notFound };
}

export async function readRawHost(): Promise<RawHost> {
  const nvidia = readNvidiaSmi();
  // The follow-up GPU queries only run when nvidia-smi exists, but start as soon as we know.
  const gpuExtra = nvidia.then(async (n) => {
    if (!n.xml) return { computeCap: null, topo: null, nvlink: null, rocmSmi: await toolText('rocm-smi', ['--showproductname', '--showmeminfo', 'vram', '--showbus', '--json'], 10_000) };
    const [computeCap, topo, nvlink] = await Promise.all([
      toolText('nvidia-smi', ['--query-gpu=index,compute_cap', '--format=csv,noheader']),
      toolText('nvidia-smi', ['topo', '-m']),
      toolText('nvidia-smi', ['nvlink', '-s']),
    ]);
    return { computeCap, topo, nvlink, rocmSmi: null };
  });
  // systeminformation's cpu() only where lscpu is missing (macOS, Windows): it costs ~100 ms.
  const lscpu = toolText('lscpu', ['-J']);
  const staticCpu = lscpu.then((text) => (text ? null : si.cpu().catch(() => null)));
  const [siCpu, osInfo, lscpuJson, cpuinfo, meminfo, limits, thp, numa, caches, lsblk, pciNuma, blockNuma, nvidiaSmi, extra] = await Promise.all([
    staticCpu,
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
  };
}
