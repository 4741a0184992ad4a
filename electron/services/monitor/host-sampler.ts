// The host lanes: per-CPU busy share, memory and swap used, whole-disk read/write rates. Read from
// /proc on Linux (asynchronously: the app's event loop, not the runner, pays for it, and only a few
// hundred microseconds); elsewhere the CPU lane comes from os.cpus() and memory from os.freemem(),
// and what has no source there says so.
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import type { LaneState } from '../../contract';
import { cpuBusyPercent, parseDiskstats, parseMeminfo, parseProcStat, type CpuTimes, type DiskCounters } from './proc';

export interface HostReading {
  cpuBusyPct: number[];
  memUsedBytes: number | null;
  memTotalBytes: number | null;
  swapUsedBytes: number | null;
  diskReadBps: number | null;
  diskWriteBps: number | null;
}

const read = (file: string) =>
  readFile(file, 'utf8').then(
    (t) => t,
    () => null,
  );

function cpusFromOs(): Map<number, CpuTimes> {
  const out = new Map<number, CpuTimes>();
  os.cpus().forEach((c, i) => {
    const busy = c.times.user + c.times.nice + c.times.sys + c.times.irq;
    out.set(i, { busy, total: busy + c.times.idle });
  });
  return out;
}

export class HostSampler {
  readonly cpu: LaneState = { available: true, reason: null };
  readonly memory: LaneState = { available: true, reason: null };
  readonly disk: LaneState = { available: true, reason: null };
  private previousCpu: Map<number, CpuTimes> | null = null;
  private previousDisk: { at: number; counters: DiskCounters } | null = null;
  private readonly linux: boolean;

  constructor(private readonly procRoot = '/proc') {
    this.linux = process.platform === 'linux';
    if (!this.linux) {
      this.disk.available = false;
      this.disk.reason = `disk counters are read from /proc/diskstats, which ${process.platform} does not have`;
    }
  }

  /** One reading; the first one has no CPU or disk rates yet (they are differences). Never throws. */
  async read(): Promise<HostReading> {
    const [stat, meminfo, diskstats] = this.linux
      ? await Promise.all([read(`${this.procRoot}/stat`), read(`${this.procRoot}/meminfo`), read(`${this.procRoot}/diskstats`)])
      : [null, null, null];
    const at = Date.now();
    return { ...this.cpuOf(stat), ...this.memoryOf(meminfo), ...this.diskOf(diskstats, at) };
  }

  private cpuOf(stat: string | null): Pick<HostReading, 'cpuBusyPct'> {
    let now: Map<number, CpuTimes>;
    if (this.linux) {
      now = stat === null ? new Map<number, CpuTimes>() : parseProcStat(stat);
      if (now.size === 0) return this.lost(this.cpu, `${this.procRoot}/stat could not be read or had no per-CPU lines`, { cpuBusyPct: [] });
    } else now = cpusFromOs();
    const before = this.previousCpu;
    this.previousCpu = now;
    this.cpu.available = true;
    this.cpu.reason = null;
    return { cpuBusyPct: before ? cpuBusyPercent(before, now) : [] };
  }

  private memoryOf(meminfo: string | null): Pick<HostReading, 'memUsedBytes' | 'memTotalBytes' | 'swapUsedBytes'> {
    if (!this.linux) {
      const total = os.totalmem();
      return { memTotalBytes: total, memUsedBytes: total - os.freemem(), swapUsedBytes: null };
    }
    const m = meminfo === null ? null : parseMeminfo(meminfo);
    if (!m)
      return this.lost(this.memory, `${this.procRoot}/meminfo could not be read or lacks MemTotal/MemAvailable`, {
        memUsedBytes: null,
        memTotalBytes: null,
        swapUsedBytes: null,
      });
    this.memory.available = true;
    this.memory.reason = null;
    return { memUsedBytes: m.usedBytes, memTotalBytes: m.totalBytes, swapUsedBytes: m.swapUsedBytes };
  }

  private diskOf(diskstats: string | null, at: number): Pick<HostReading, 'diskReadBps' | 'diskWriteBps'> {
    const none = { diskReadBps: null, diskWriteBps: null };
    if (!this.linux) return none;
    const counters = diskstats === null ? null : parseDiskstats(diskstats);
    if (!counters || counters.devices.length === 0)
      return this.lost(this.disk, `no whole disk (nvme*, sd*, vd*) in ${this.procRoot}/diskstats`, none);
    const before = this.previousDisk;
    this.previousDisk = { at, counters };
    this.disk.available = true;
    this.disk.reason = null;
    const seconds = before ? (at - before.at) / 1000 : 0;
    if (!before || seconds <= 0) return none;
    return {
      diskReadBps: Math.max(0, (counters.readBytes - before.counters.readBytes) / seconds),
      diskWriteBps: Math.max(0, (counters.writtenBytes - before.counters.writtenBytes) / seconds),
    };
  }

  private lost<T>(lane: LaneState, reason: string, value: T): T {
    lane.available = false;
    lane.reason = reason;
    return value;
  }
}
