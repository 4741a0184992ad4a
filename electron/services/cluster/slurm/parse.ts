// Parsers of Slurm's command output: `scontrol -o show node|job|partition` (one record per line of
// Key=Value words) and gres strings. Pure; the tests feed them output captured from a real slurmctld.

/** One `scontrol -o show …` line as Key → Value. Values run to the next ` Key=` (a few, such as
 * Reason or Command, may hold spaces; the last key on the line takes the rest). */
export function parseScontrolLine(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /(?:^|\s)([A-Za-z][A-Za-z0-9_:/.]*)=/g;
  const keys: { key: string; start: number; valueStart: number }[] = [];
  for (let m = re.exec(line); m; m = re.exec(line)) keys.push({ key: m[1], start: m.index, valueStart: m.index + m[0].length });
  keys.forEach((k, i) => {
    const end = i + 1 < keys.length ? keys[i + 1].start : line.length;
    out[k.key] = line.slice(k.valueStart, end).trim();
  });
  return out;
}

export function parseScontrolRecords(text: string): Record<string, string>[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('='))
    .map(parseScontrolLine);
}

export interface Gres {
  gpus: number;
  gpuType: string | null;
}

/** `gpu:a100:4(S:0-1),gpu:2,shard:8` → the GPUs it names (their count and first type). */
export function parseGres(gres: string | undefined): Gres {
  let gpus = 0;
  let gpuType: string | null = null;
  if (!gres || gres === '(null)') return { gpus, gpuType };
  for (const part of gres.split(/,(?![^(]*\))/)) {
    const clean = part.replace(/\(.*\)$/, '');
    const fields = clean.split(':');
    if (fields[0] !== 'gpu') continue;
    const count = Number(fields.at(-1));
    if (!Number.isFinite(count)) continue;
    gpus += count;
    if (fields.length === 3 && !gpuType) gpuType = fields[1];
  }
  return { gpus, gpuType };
}

/** Slurm memory words (MaxRSS 1234K, RealMemory in MiB) → bytes. */
export function slurmBytes(value: string | undefined, defaultUnit: 'K' | 'M' = 'K'): number | null {
  if (!value) return null;
  const m = /^([0-9.]+)([KMGTP]?)$/i.exec(value.trim());
  if (!m) return null;
  const unit = (m[2] || defaultUnit).toUpperCase();
  const scale = { K: 1, M: 2, G: 3, T: 4, P: 5 }[unit as 'K'] ?? 1;
  return Math.round(Number(m[1]) * 1024 ** scale);
}

/** `scontrol show hostnames` is the authority on node-list syntax; this handles the plain forms
 * (`n1,n2`, `n[1-3,5]`, `gpu[01-02]`) for display and the job record. */
export function expandNodeList(list: string | undefined): string[] {
  if (!list || list === '(null)' || list === 'None assigned') return [];
  const out: string[] = [];
  for (const part of list.split(/,(?![^[]*\])/)) {
    const m = /^(.*)\[([^\]]+)\](.*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    for (const range of m[2].split(',')) {
      const [a, b] = range.split('-');
      if (b === undefined) out.push(`${m[1]}${a}${m[3]}`);
      else for (let i = Number(a); i <= Number(b); i++) out.push(`${m[1]}${String(i).padStart(a.length, '0')}${m[3]}`);
    }
  }
  return out;
}
