// Loads a captured host folder (tests/fixtures/hosts/<name>) into a RawHost, so tests run the
// exact pipeline a live detection runs, minus the I/O.
import fs from 'node:fs';
import path from 'node:path';
import type { RawHost } from '../../../electron/services/hardware';

export const HOSTS = path.resolve(import.meta.dirname, '../../fixtures/hosts');

export function fixtureText(host: string, file: string): string | null {
  const p = path.join(HOSTS, host, file);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
}

export function loadHost(host: string, overrides: Partial<RawHost> = {}): RawHost {
  const t = (f: string) => fixtureText(host, f);
  const dir = path.join(HOSTS, host);
  const nodeDir = path.join(dir, 'sys-node');
  const cacheDir = path.join(dir, 'sys-cache');
  const numa = fs.existsSync(nodeDir)
    ? fs.readdirSync(nodeDir).map((n) => ({
        id: Number(n.slice(4)),
        cpulist: fs.readFileSync(path.join(nodeDir, n, 'cpulist'), 'utf8').trim(),
        meminfo: fs.readFileSync(path.join(nodeDir, n, 'meminfo'), 'utf8'),
      }))
    : null;
  const caches = fs.existsSync(cacheDir)
    ? fs.readdirSync(cacheDir).map((n) => {
        const r = (f: string) => fs.readFileSync(path.join(cacheDir, n, f), 'utf8').trim();
        return { level: r('level'), type: r('type'), size: r('size'), sharedCpuList: r('shared_cpu_list') };
      })
    : null;
  const xml = t('nvidia-smi-q.xml');
  const lscpuText = [t('lscpu.txt'), t('lscpu-numa.txt')].filter(Boolean).join('\n') || null;
  return {
    hostname: host,
    os: { platform: 'linux', distro: 'fixture', release: '', kernel: '', arch: 'x64' },
    staticCpu: null,
    fallbackMemory: { totalBytes: 0, availableBytes: null },
    fallbackCores: { logical: 1, physical: null },
    lscpuJson: t('lscpu.json'),
    lscpuText,
    cpuinfo: t('proc-cpuinfo.txt'),
    meminfo: t('proc-meminfo.txt'),
    limits: t('proc-self-limits.txt'),
    thp: t('thp-enabled.txt'),
    numa,
    caches,
    nvidiaSmi: xml ? { xml, error: null, notFound: false } : { xml: null, error: null, notFound: true },
    computeCap: null,
    topo: t('nvidia-smi-topo-m.txt'),
    nvlink: t('nvidia-smi-nvlink.txt'),
    rocmSmi: null,
    lsblk: t('lsblk.json'),
    pciNuma: {},
    blockNuma: {},
    ...overrides,
  };
}
