// Pure parsers for memory facts: /proc/meminfo, sysfs node meminfo, /proc/self/limits, THP mode.
import type { Memory } from '../../../contract';

/** "/proc/meminfo" → bytes per key (kB lines ×1024; HugePages_* counts kept as plain numbers). */
export function parseMeminfo(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    // sysfs node*/meminfo prefixes "Node 0 "; accept both.
    const m = /^(?:Node\s+\d+\s+)?([\w()]+):\s+(\d+)(\s*kB)?/.exec(line.trim());
    if (!m) continue;
    out[m[1]] = Number(m[2]) * (m[3] ? 1024 : 1);
  }
  return out;
}

/**
 * "/proc/self/limits" "Max locked memory  8388608  8388608  bytes" → the soft limit (what a
 * process gets), null when unlimited. This is `ulimit -l` (in bytes, not KiB).
 */
export function parseLockedMemoryLimit(text: string): { bytes: number | null; unlimited: boolean } | null {
  const line = text.split('\n').find((l) => /^Max locked memory/i.test(l));
  if (!line) return null;
  const soft = line
    .replace(/^Max locked memory\s+/i, '')
    .trim()
    .split(/\s+/)[0];
  if (soft === 'unlimited') return { bytes: null, unlimited: true };
  const n = Number(soft);
  return Number.isFinite(n) ? { bytes: n, unlimited: false } : null;
}

/** "always [madvise] never" → "madvise". */
export function parseThpMode(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = /\[(\w+)\]/.exec(text);
  return m ? m[1] : text.trim() || null;
}

export function buildMemory(
  meminfo: Record<string, number>,
  limits: { bytes: number | null; unlimited: boolean } | null,
  thp: string | null,
  fallback: { totalBytes: number; availableBytes: number | null },
): Memory {
  const hugeTotal = meminfo.HugePages_Total;
  return {
    totalBytes: meminfo.MemTotal ?? fallback.totalBytes,
    availableBytes: meminfo.MemAvailable ?? fallback.availableBytes,
    hugePages:
      hugeTotal !== undefined ? { total: hugeTotal, free: meminfo.HugePages_Free ?? 0, sizeBytes: meminfo.Hugepagesize ?? 0 } : null,
    transparentHugePages: thp,
    lockedMemoryLimitBytes: limits ? limits.bytes : null,
    lockedMemoryUnlimited: limits ? limits.unlimited : false,
  };
}
