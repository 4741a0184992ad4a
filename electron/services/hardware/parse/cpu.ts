// Pure parsers for CPU facts: lscpu (-J or text), /proc/cpuinfo, sysfs caches, SIMD capabilities.
import type { Cache } from '../../../contract';
import { parseCpuList, parseSize } from './util';

export type LscpuFields = Record<string, string>;

/**
 * `lscpu -J`: {"lscpu":[{field:"Architecture:", data:"x86_64", children?:[...]}]}. Newer util-linux
 * nests fields under "children"; flatten them. Keys lose their trailing colon.
 */
export function parseLscpuJson(text: string): LscpuFields {
  const out: LscpuFields = {};
  const doc = JSON.parse(text) as { lscpu?: LscpuEntry[] };
  const walk = (entries: LscpuEntry[] | undefined) => {
    for (const e of entries ?? []) {
      const key = String(e.field ?? '')
        .replace(/:\s*$/, '')
        .trim();
      if (key && e.data !== undefined && e.data !== null) out[key] = String(e.data).trim();
      walk(e.children);
    }
  };
  walk(doc.lscpu);
  return out;
}
interface LscpuEntry {
  field?: string;
  data?: string | null;
  children?: LscpuEntry[];
}

/**
 * Human `lscpu` (indented "Key:  value" lines, as pasted in issues). A Flags value may wrap onto
 * indented lines without a colon; those continue the previous field.
 */
export function parseLscpuText(text: string): LscpuFields {
  const out: LscpuFields = {};
  let last: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (!line.trim()) continue;
    const m = /^\s*([^:]+?):\s*(.*)$/.exec(line);
    if (m) {
      last = m[1].trim();
      out[last] = m[2].trim();
    } else if (last) {
      out[last] = `${out[last]} ${line.trim()}`.trim();
    }
  }
  return out;
}

export interface CpuinfoSummary {
  vendor: string | null;
  model: string | null;
  flags: string[]; // x86 "flags" or aarch64 "Features"
  logical: number;
  /** distinct (physical id, core id) pairs; 0 when the file has no topology (aarch64). */
  physicalCores: number;
  sockets: number;
  mhz: number | null;
  implementer: string | null; // aarch64 "CPU implementer" (0x41 Arm, 0x4e NVIDIA)
  part: string | null; // aarch64 "CPU part" (0xd4f Neoverse-V2)
}

export function parseCpuinfo(text: string): CpuinfoSummary {
  const blocks = text.split(/\n\s*\n/).filter((b) => b.trim());
  const summary: CpuinfoSummary = {
    vendor: null,
    model: null,
    flags: [],
    logical: 0,
    physicalCores: 0,
    sockets: 0,
    mhz: null,
    implementer: null,
    part: null,
  };
  const cores = new Set<string>();
  const sockets = new Set<string>();
  for (const block of blocks) {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      fields[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    if (fields.processor === undefined) continue;
    summary.logical++;
    summary.vendor ??= fields.vendor_id ?? null;
    summary.model ??= fields['model name'] ?? null;
    summary.implementer ??= fields['cpu implementer'] ?? null;
    summary.part ??= fields['cpu part'] ?? null;
    if (summary.mhz === null && fields['cpu mhz']) summary.mhz = Number(fields['cpu mhz']) || null;
    if (summary.flags.length === 0) summary.flags = (fields.flags ?? fields.features ?? '').split(/\s+/).filter(Boolean);
    if (fields['physical id'] !== undefined) {
      sockets.add(fields['physical id']);
      if (fields['core id'] !== undefined) cores.add(`${fields['physical id']}:${fields['core id']}`);
    }
  }
  summary.physicalCores = cores.size;
  summary.sockets = sockets.size;
  return summary;
}

// Arm implementer/part codes for names that lscpu knows but /proc/cpuinfo does not spell.
const ARM_PARTS: Record<string, string> = {
  '0x41:0xd4f': 'Neoverse-V2',
  '0x41:0xd40': 'Neoverse-V1',
  '0x41:0xd0c': 'Neoverse-N1',
  '0x41:0xd49': 'Neoverse-N2',
  '0x41:0xd8e': 'Neoverse-N3',
  '0x41:0xd84': 'Neoverse-V3',
};
const ARM_IMPLEMENTERS: Record<string, string> = { '0x41': 'ARM', '0x4e': 'NVIDIA', '0xc0': 'Ampere', '0x61': 'Apple' };

export function armName(implementer: string | null, part: string | null): { vendor: string | null; model: string | null } {
  if (!implementer) return { vendor: null, model: null };
  const imp = implementer.toLowerCase();
  return { vendor: ARM_IMPLEMENTERS[imp] ?? imp, model: part ? (ARM_PARTS[`${imp}:${part.toLowerCase()}`] ?? null) : null };
}

/**
 * The SIMD features that decide CPU Adam speed, in a fixed order. aarch64 spells NEON "asimd";
 * we report it as "neon" (plus the raw names for SVE and bf16 variants).
 */
const X86_SIMD = [
  'sse4_2',
  'avx',
  'fma',
  'avx2',
  'avx512f',
  'avx512bw',
  'avx512vl',
  'avx512_vnni',
  'avx512_bf16',
  'avx512_fp16',
  'amx_tile',
  'amx_bf16',
  'amx_int8',
  'avx_vnni',
];
const ARM_SIMD = ['asimd', 'asimdhp', 'asimddp', 'sve', 'sve2', 'svebf16', 'bf16', 'i8mm'];

export function simdCapabilities(flags: string[], architecture: string): string[] {
  const set = new Set(flags.map((f) => f.toLowerCase()));
  if (/^(aarch64|arm64)/.test(architecture)) {
    const out = ARM_SIMD.filter((f) => set.has(f)).map((f) => (f === 'asimd' ? 'neon' : f));
    return out;
  }
  return X86_SIMD.filter((f) => set.has(f));
}

/**
 * The code path DeepSpeed's CPUAdamBuilder compiles (op_builder/builder.py simd_width): AVX-512
 * when the flags say avx512, else AVX2 ("avx256"), else scalar. On aarch64 it builds the scalar
 * path (GraceAdam is not in the repository, see docs/engine-facts.md).
 */
export function adamSimdPath(simd: string[], architecture: string): string {
  if (/^(aarch64|arm64)/.test(architecture)) return 'scalar';
  if (simd.includes('avx512f')) return 'avx512';
  if (simd.includes('avx2')) return 'avx256';
  return 'scalar';
}

export interface SysfsCacheEntry {
  level: string;
  type: string;
  size: string; // "32K"
  sharedCpuList: string; // "0-1"
}

/** sysfs cpu0/cache/index* entries → per-instance caches; instances = logical CPUs / sharers. */
export function cachesFromSysfs(entries: SysfsCacheEntry[], logicalCores: number): Cache[] {
  return entries
    .map((e) => {
      const sharedBy = parseCpuList(e.sharedCpuList).length || null;
      return {
        level: Number(e.level),
        type: e.type.trim(),
        sizeBytes: parseSize(e.size) ?? 0,
        sharedBy,
        instances: sharedBy ? Math.max(1, Math.round(logicalCores / sharedBy)) : null,
      };
    })
    .sort((a, b) => a.level - b.level || a.type.localeCompare(b.type));
}

/** lscpu "L1d cache: 768 KiB (16 instances)" → per-instance size (lscpu prints the sum). */
export function cachesFromLscpu(fields: LscpuFields, logicalCores: number): Cache[] {
  const out: Cache[] = [];
  const keys: [string, number, string][] = [
    ['L1d', 1, 'Data'],
    ['L1i', 1, 'Instruction'],
    ['L2', 2, 'Unified'],
    ['L3', 3, 'Unified'],
  ];
  for (const [name, level, type] of keys) {
    const text = fields[`${name} cache`] ?? fields[name];
    if (!text) continue;
    const total = parseSize(text);
    if (total === null) continue;
    const m = /\((\d+)\s+instances?\)/.exec(text);
    const instances = m ? Number(m[1]) : null;
    out.push({
      level,
      type,
      sizeBytes: instances ? Math.round(total / instances) : total,
      sharedBy: instances ? Math.max(1, Math.round(logicalCores / instances)) : null,
      instances,
    });
  }
  return out;
}
