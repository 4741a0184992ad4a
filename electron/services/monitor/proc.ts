// Pure readers of Linux /proc files for the host lanes of the resource view: per-CPU time from
// /proc/stat (busy share between two reads), memory and swap from /proc/meminfo, bytes read and
// written by whole disks from /proc/diskstats. No dependency: these files are the source every
// tool (top, vmstat, iostat) reads.

/** Jiffies of one logical CPU: busy (user+nice+system+irq+softirq+steal) and total (busy + idle + iowait). */
export interface CpuTimes {
  busy: number;
  total: number;
}

/** /proc/stat → the per-CPU lines ("cpu0 …", not the aggregate "cpu"), indexed by CPU number. */
export function parseProcStat(text: string): Map<number, CpuTimes> {
  const out = new Map<number, CpuTimes>();
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const v = m[2].trim().split(/\s+/).map(Number);
    if (v.length < 4 || v.slice(0, 8).some((x) => !Number.isFinite(x))) continue;
    const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = v;
    // guest/guest_nice (fields 9–10) are already inside user/nice: not added again.
    const busy = user + nice + system + irq + softirq + steal;
    out.set(Number(m[1]), { busy, total: busy + idle + iowait });
  }
  return out;
}

/** Busy percent of each CPU between two reads; a CPU missing from either read (hot-unplugged) is left out. */
export function cpuBusyPercent(before: Map<number, CpuTimes>, after: Map<number, CpuTimes>): number[] {
  const ids = [...after.keys()].filter((id) => before.has(id)).sort((a, b) => a - b);
  const out: number[] = [];
  for (const id of ids) {
    const a = before.get(id)!;
    const b = after.get(id)!;
    const total = b.total - a.total;
    const busy = b.busy - a.busy;
    // No ticks in the interval (an offline CPU, or reads too close): idle rather than a division by 0.
    out.push(total > 0 ? Math.round(Math.min(100, Math.max(0, (100 * busy) / total))) : 0);
  }
  return out;
}

export interface MemInfo {
  totalBytes: number;
  usedBytes: number; // MemTotal − MemAvailable: what the kernel could not hand out without swapping
  swapUsedBytes: number | null; // null where the host has no swap configured
}

/** /proc/meminfo → used memory and swap; null when the file lacks MemTotal/MemAvailable. */
export function parseMeminfo(text: string): MemInfo | null {
  const kb = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+(?:\(\w+\))?):\s+(\d+)\s*kB/.exec(line);
    if (m) kb.set(m[1], Number(m[2]) * 1024);
  }
  const total = kb.get('MemTotal');
  const available = kb.get('MemAvailable');
  if (total === undefined || available === undefined) return null;
  const swapTotal = kb.get('SwapTotal') ?? 0;
  const swapFree = kb.get('SwapFree') ?? 0;
  return {
    totalBytes: total,
    usedBytes: Math.max(0, total - available),
    swapUsedBytes: swapTotal > 0 ? Math.max(0, swapTotal - swapFree) : null,
  };
}

/** Sectors read and written by the whole disks: nvme0n1, sda, vda, xvda (partitions, loop, ram and dm devices left out: they would count the same bytes twice). */
export interface DiskCounters {
  readBytes: number;
  writtenBytes: number;
  devices: string[];
}

const WHOLE_DISK = /^(nvme\d+n\d+|[shv]d[a-z]+|xvd[a-z]+)$/;

/** /proc/diskstats → summed bytes of the whole disks (sectors are 512 bytes there, whatever the device's). */
export function parseDiskstats(text: string): DiskCounters {
  let readBytes = 0;
  let writtenBytes = 0;
  const devices: string[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !WHOLE_DISK.test(f[2])) continue;
    const read = Number(f[5]);
    const written = Number(f[9]);
    if (!Number.isFinite(read) || !Number.isFinite(written)) continue;
    readBytes += read * 512;
    writtenBytes += written * 512;
    devices.push(f[2]);
  }
  return { readBytes, writtenBytes, devices };
}
