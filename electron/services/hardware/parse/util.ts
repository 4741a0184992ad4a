// Small helpers shared by the pure parsers: number/size text to numbers, CPU list ranges.

/** "0-3,8,10-11" → [0,1,2,3,8,10,11]. Empty or blank text → []. */
export function parseCpuList(text: string | null | undefined): number[] {
  if (!text) return [];
  const out: number[] = [];
  for (const part of text.trim().split(',')) {
    const p = part.trim();
    if (!p) continue;
    const m = /^(\d+)(?:-(\d+))?$/.exec(p);
    if (!m) continue;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let i = a; i <= b; i++) out.push(i);
  }
  return out;
}

/** Compact form for display: [0,1,2,3,8] → "0-3,8". */
export function formatCpuList(cpus: number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

const UNIT: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * "32K", "1024K", "768 KiB", "143771 MiB", "300 MiB (1 instance)" → bytes. Binary units throughout:
 * sysfs, lscpu, /proc/meminfo and nvidia-smi all mean 1024 by K/M/G.
 */
export function parseSize(text: string | null | undefined): number | null {
  if (!text) return null;
  const m = /^\s*([\d.]+)\s*([a-z]*)/i.exec(text);
  if (!m) return null;
  const value = Number(m[1]);
  const unit = UNIT[(m[2] || 'b').toLowerCase()];
  if (!Number.isFinite(value) || unit === undefined) return null;
  return Math.round(value * unit);
}

/** nvidia-smi writes "N/A", "[N/A]", "Not Supported" for missing values. */
export function naToNull(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const s = String(value).trim();
  if (!s || /^\[?n\/a\]?$/i.test(s) || /not supported|unknown error|insufficient permissions/i.test(s)) return null;
  return s;
}

/** First number in a text ("700.00 W" → 700, "16x" → 16), or null. */
export function leadingNumber(value: unknown): number | null {
  const s = naToNull(value);
  if (s === null) return null;
  const m = /-?[\d.]+/.exec(s);
  if (!m) return null;
  const n = Number(m[0]);
  return Number.isFinite(n) ? n : null;
}

/** Remove terminal colour escapes (nvidia-smi topo -m underlines its header). */
export function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
