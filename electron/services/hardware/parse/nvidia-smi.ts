// Pure parsers for nvidia-smi: `-q -x` (XML, one call for every GPU field), `topo -m` (the
// GPU↔GPU/CPU matrix), `nvlink -s` (per-link speed) and `--query-gpu=index,compute_cap`.
import { XMLParser } from 'fast-xml-parser';
import type { Gpu } from '../../../contract';
import { leadingNumber, naToNull, stripAnsi } from './util';

export interface NvidiaSmiReport {
  driverVersion: string | null;
  cudaVersion: string | null;
  gpus: Gpu[];
}

type XmlNode = Record<string, unknown>;
const node = (v: unknown): XmlNode => (v && typeof v === 'object' ? (v as XmlNode) : {});

// nvidia-smi -q has no compute capability field; `--query-gpu=compute_cap` does (driver ≥ 510).
// When that query is not available, the architecture name is enough for the data-centre parts.
const CAPABILITY_BY_ARCH: Record<string, string> = {
  kepler: '3.7',
  maxwell: '5.2',
  pascal: '6.0',
  volta: '7.0',
  turing: '7.5',
  ampere: '8.0',
  'ada lovelace': '8.9',
  hopper: '9.0',
  blackwell: '10.0',
};

export function capabilityFromArchitecture(architecture: string | null, name: string): string | null {
  if (!architecture) return null;
  const arch = architecture.toLowerCase();
  // Consumer/workstation Ampere (RTX 30xx, A10, A40, RTX A6000) is 8.6; A100/A30 are 8.0.
  if (arch === 'ampere' && !/A100|A30\b|A800/i.test(name)) return '8.6';
  // Consumer Blackwell (RTX 50xx, RTX PRO) is 12.0; B100/B200/GB200 are 10.0.
  if (arch === 'blackwell' && /RTX|GeForce/i.test(name)) return '12.0';
  return CAPABILITY_BY_ARCH[arch] ?? null;
}

export function parseNvidiaSmiXml(xml: string): NvidiaSmiReport {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false, // keep "9.0", "00000000:00:06.0" and "16x" as text
    isArray: (name, jpath) => jpath === 'nvidia_smi_log.gpu',
  });
  const doc = node(node(parser.parse(xml)).nvidia_smi_log);
  const driverVersion = naToNull(doc.driver_version);
  const cudaVersion = naToNull(doc.cuda_version);
  const gpuNodes = (Array.isArray(doc.gpu) ? doc.gpu : []) as XmlNode[];
  const gpus = gpuNodes.map((g, i): Gpu => {
    const pci = node(g.pci);
    const link = node(pci.pci_gpu_link_info);
    const gen = node(link.pcie_gen);
    const width = node(link.link_widths);
    const fb = node(g.fb_memory_usage);
    // Newer drivers: gpu_power_readings.current_power_limit; older: power_readings.power_limit.
    const power = node(g.gpu_power_readings ?? g.power_readings);
    const name = naToNull(g.product_name) ?? 'NVIDIA GPU';
    const architecture = naToNull(g.product_architecture);
    const minor = leadingNumber(g.minor_number);
    const c2c = naToNull(g.c2c_mode);
    return {
      index: minor ?? i,
      vendor: 'nvidia',
      name,
      uuid: naToNull(g.uuid),
      busId: naToNull(pci.pci_bus_id) ?? naToNull(g['@_id']),
      memoryBytes: (leadingNumber(fb.total) ?? 0) * 1024 * 1024,
      computeCapability: capabilityFromArchitecture(architecture, name),
      driverVersion,
      cudaVersion,
      pcie: {
        gen: leadingNumber(gen.current_link_gen),
        width: leadingNumber(width.current_link_width),
        // max_link_gen is the link's max given GPU *and* host; the device max is separate.
        maxGen: leadingNumber(gen.max_link_gen) ?? leadingNumber(gen.max_device_link_gen),
        maxWidth: leadingNumber(width.max_link_width),
      },
      numaNode: leadingNumber(g.numa_node ?? node(g.numa).node),
      cpuAffinity: null,
      powerLimitWatts: leadingNumber(power.current_power_limit ?? power.power_limit ?? power.enforced_power_limit),
      links: [],
      architecture,
      c2cMode: c2c === null ? null : /enabled/i.test(c2c),
      addressingMode: naToNull(g.addressing_mode),
    };
  });
  // minor_number is the /dev/nvidiaN index, which matches nvidia-smi's index on normal hosts;
  // when it is missing or duplicated, fall back to XML order (also nvidia-smi's order).
  const seen = new Set(gpus.map((g) => g.index));
  if (seen.size !== gpus.length) gpus.forEach((g, i) => (g.index = i));
  gpus.sort((a, b) => a.index - b.index);
  return { driverVersion, cudaVersion, gpus };
}

/** `nvidia-smi --query-gpu=index,compute_cap --format=csv,noheader` → index → "9.0". */
export function parseComputeCapCsv(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length < 2 || !/^\d+$/.test(cells[0])) continue;
    const cap = cells[cells.length - 1];
    if (/^\d+\.\d+$/.test(cap)) out.set(Number(cells[0]), cap);
  }
  return out;
}

export interface TopoRow {
  name: string; // GPU0, NIC0, mlx5_0
  cells: Record<string, string>; // column device → class (X, NV18, PIX, SYS, ...)
  cpuAffinity: string | null;
  numaAffinity: string | null;
  gpuNumaId: string | null;
}
export interface TopoMatrix {
  devices: string[];
  rows: TopoRow[];
}

/**
 * `nvidia-smi topo -m`. Columns are tab-separated in the real output (pasted copies often turn
 * the tabs into runs of spaces; both are accepted). Rows carry an extra empty cell between
 * "NUMA Affinity" and "GPU NUMA ID", so the trailing cells are read by meaning, not position.
 */
export function parseTopoMatrix(text: string): TopoMatrix {
  const lines = stripAnsi(text).split('\n');
  // The header is indented (its first cell is empty); rows start with their device name.
  const headerIndex = lines.findIndex((l) => /\bGPU0\b/.test(l) && !/^GPU0\b/.test(l));
  if (headerIndex < 0) return { devices: [], rows: [] };
  const header = lines[headerIndex];
  const headerCells = (header.includes('\t') ? header.split('\t') : header.split(/\s{2,}/)).map((c) => c.trim()).filter(Boolean);
  const devices = headerCells.filter((c) => !/affinity|numa id/i.test(c));
  const rows: TopoRow[] = [];
  for (const line of lines.slice(headerIndex + 1)) {
    if (!line.trim() || /^Legend/i.test(line.trim())) break;
    const cells = line.includes('\t') ? line.split('\t').map((c) => c.trim()) : line.trim().split(/\s+/);
    const name = cells[0];
    if (!name || !devices.includes(name)) continue;
    const values = cells.slice(1, 1 + devices.length);
    const record: Record<string, string> = {};
    devices.forEach((d, i) => (record[d] = values[i] ?? ''));
    const rest = cells.slice(1 + devices.length);
    const nonEmptyAfterNuma = rest.slice(2).filter((c) => c !== '');
    rows.push({
      name,
      cells: record,
      cpuAffinity: naToNull(rest[0]),
      numaAffinity: naToNull(rest[1]),
      gpuNumaId: naToNull(nonEmptyAfterNuma[nonEmptyAfterNuma.length - 1]),
    });
  }
  return { devices, rows };
}

export interface NvlinkStatus {
  gpu: number;
  activeLinks: number;
  /** per-link speed in GB/s (per direction) as nvidia-smi prints it, when all links agree */
  linkGBps: number | null;
}

/** `nvidia-smi nvlink -s`: "GPU 0: NVIDIA H100 ... \n\t Link 0: 26.562 GB/s" (or "<inactive>"). */
export function parseNvlinkStatus(text: string): NvlinkStatus[] {
  const out: NvlinkStatus[] = [];
  let current: NvlinkStatus | null = null;
  const speeds: number[] = [];
  const flush = () => {
    if (current) {
      current.linkGBps = speeds.length ? Math.max(...speeds) : null;
      out.push(current);
    }
    speeds.length = 0;
  };
  for (const line of text.split('\n')) {
    const g = /^GPU\s+(\d+):/.exec(line.trim());
    if (g) {
      flush();
      current = { gpu: Number(g[1]), activeLinks: 0, linkGBps: null };
      continue;
    }
    const l = /^Link\s+\d+:\s*([\d.]+)\s*GB\/s/i.exec(line.trim());
    if (l && current) {
      current.activeLinks++;
      speeds.push(Number(l[1]));
    }
  }
  flush();
  return out;
}

// ---- live sampling: the resource view's GPU lanes ----

/** The fields the resource sampler asks `nvidia-smi --query-gpu=… --format=csv,noheader,nounits -lms N` for, in order. */
export const GPU_SAMPLE_FIELDS = ['timestamp', 'index', 'utilization.gpu', 'memory.used', 'power.draw', 'clocks.sm'] as const;

export interface GpuSampleLine {
  index: number;
  utilPct: number | null;
  memUsedMiB: number | null;
  powerW: number | null;
  smClockMHz: number | null;
}

/** A cell of a `nounits` CSV: a finite number, or null for "[N/A]", "[Not Supported]", "N/A", "". */
function csvNumber(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  const t = cell.trim();
  if (!/^-?\d+(?:\.\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/**
 * One line of the sampler's query (GPU_SAMPLE_FIELDS): "2026/12/05 03:30:00.123, 0, 45, 12345, 350.12, 1980".
 * Null for anything else (a header, an error message, a truncated line): garbage is counted by the
 * caller, never taken for a reading. The timestamp is not used (the app stamps each line as it
 * arrives, in the clock the runner's steps are placed in).
 */
export function parseGpuSampleLine(line: string): GpuSampleLine | null {
  const cells = stripAnsi(line)
    .split(',')
    .map((c) => c.trim());
  if (cells.length !== GPU_SAMPLE_FIELDS.length) return null;
  if (!/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?$/.test(cells[0])) return null;
  if (!/^\d+$/.test(cells[1])) return null;
  const utilPct = csvNumber(cells[2]);
  return {
    index: Number(cells[1]),
    utilPct: utilPct === null ? null : Math.min(100, Math.max(0, utilPct)),
    memUsedMiB: csvNumber(cells[3]),
    powerW: csvNumber(cells[4]),
    smClockMHz: csvNumber(cells[5]),
  };
}

export interface DmonPcieLine {
  index: number;
  rxMBps: number | null;
  txMBps: number | null;
}

/**
 * `nvidia-smi dmon -s t`: a header "# gpu  rxpci  txpci" (newer drivers add columns; they are read by
 * name), a units line "# Idx  MB/s  MB/s", then one row per GPU per interval. `columns` is the header
 * seen last (null before one): pass it back in with each line. Returns the header it now holds and the
 * row, if the line was one.
 */
export function parseDmonLine(line: string, columns: string[] | null): { columns: string[] | null; row: DmonPcieLine | null } {
  const text = stripAnsi(line).trim();
  if (text.startsWith('#')) {
    const names = text
      .slice(1)
      .trim()
      .split(/\s+/)
      .map((c) => c.toLowerCase());
    // The units line ("# Idx MB/s MB/s") is not a header.
    if (names[0] === 'gpu') return { columns: names, row: null };
    return { columns, row: null };
  }
  if (!columns || !text) return { columns, row: null };
  const cells = text.split(/\s+/);
  if (cells.length !== columns.length || !/^\d+$/.test(cells[0])) return { columns, row: null };
  const rx = columns.indexOf('rxpci');
  const tx = columns.indexOf('txpci');
  if (rx < 0 && tx < 0) return { columns, row: null };
  // dmon prints "-" for a value it could not read.
  return {
    columns,
    row: { index: Number(cells[0]), rxMBps: rx >= 0 ? csvNumber(cells[rx]) : null, txMBps: tx >= 0 ? csvNumber(cells[tx]) : null },
  };
}
