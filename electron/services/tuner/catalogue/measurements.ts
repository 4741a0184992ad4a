// Host measurements (saved by services/hardware/measure as <dataDir>/measurements.json) read
// structurally: the tuner accepts any object carrying the figures it knows by name, so it does
// not depend on the measuring service's exact shape — and it also reads the raw ceilings file
// of the fixture hosts (measured-ceilings.json). Anything absent falls back to the catalog.

export interface TunerMeasurements {
  /** CPU Adam rate of the whole host, by thread count. */
  cpuAdam?: { threads: number; paramsPerSecond: number }[];
  hostToDeviceBytesPerSecond?: number;
  /** Pageable (not pinned) host→GPU copy rate. */
  hostToDevicePageableBytesPerSecond?: number;
  memoryBandwidthBytesPerSecond?: number;
  /** The same by thread count, where the measurement swept threads. */
  memoryBandwidthByThreads?: { threads: number; bytesPerSecond: number }[];
  gpuMatmulTflops?: number;
  diskBytesPerSecond?: number;
  /** The measuring service's own cpuadam_cores_perc pick (knee of its sweep), when it made one. */
  recommendedCoresPerc?: number;
  /** torch's CPU AdamW (FSDP2 offload's step) by implementation, params/s of the whole host at `threads`. */
  torchAdam?: { threads: number; plain?: number; foreach?: number; fused?: number };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const pos = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

function walk(v: unknown, visit: (key: string, value: unknown, parent: Obj) => void, depth = 0): void {
  if (depth > 5) return;
  if (Array.isArray(v)) v.forEach((x) => walk(x, visit, depth + 1));
  else if (isObj(v))
    for (const [k, x] of Object.entries(v)) {
      visit(k, x, v);
      walk(x, visit, depth + 1);
    }
}

function sweepFrom(list: unknown): { threads: number; paramsPerSecond: number }[] {
  if (!Array.isArray(list)) return [];
  const out: { threads: number; paramsPerSecond: number }[] = [];
  for (const e of list) {
    if (!isObj(e)) continue;
    const threads = pos(e.threads ?? e.threadCount ?? e.numThreads);
    const rate =
      pos(e.paramsPerSecond ?? e.paramsPerSec ?? e.rate) ?? (pos(e.gparamsPerSecond) ? pos(e.gparamsPerSecond)! * 1e9 : undefined);
    if (threads && rate) out.push({ threads: Math.round(threads), paramsPerSecond: rate });
  }
  return out;
}

/** Normalise a measurement object of any known shape; undefined in, undefined out. */
export function normalizeMeasurements(raw: unknown): TunerMeasurements | undefined {
  if (!isObj(raw)) return undefined;
  const m: TunerMeasurements = {};
  // the fixture ceilings file (GB/s, TFLOPS, G params/s keys)
  const fixtureAdam = raw.cpu_adamw_Gparams_per_s;
  if (isObj(fixtureAdam)) {
    const fused = Object.entries(fixtureAdam).filter(([k]) => /^fused_t\d+$/.test(k));
    const rows = (fused.length ? fused : Object.entries(fixtureAdam).filter(([k]) => /_t\d+$/.test(k)))
      .map(([k, v]) => ({ threads: Number(k.split('_t')[1]), paramsPerSecond: (pos(v) ?? 0) * 1e9 }))
      .filter((r) => r.paramsPerSecond > 0);
    if (rows.length) m.cpuAdam = rows;
  }
  if (pos(raw.h2d_pinned_GBps)) m.hostToDeviceBytesPerSecond = pos(raw.h2d_pinned_GBps)! * 1e9;
  if (pos(raw.h2d_pageable_GBps)) m.hostToDevicePageableBytesPerSecond = pos(raw.h2d_pageable_GBps)! * 1e9;
  if (pos(raw.bf16_matmul_TFLOPS)) m.gpuMatmulTflops = pos(raw.bf16_matmul_TFLOPS);
  if (pos(raw['cpu_copy_GBps(read+write)'])) m.memoryBandwidthBytesPerSecond = pos(raw['cpu_copy_GBps(read+write)'])! * 1e9;

  // the measuring service's Measurement (contract/measure.ts), read by name
  if (Array.isArray(raw.cpuAdam)) {
    const rows = sweepFrom(raw.cpuAdam);
    if (rows.length) m.cpuAdam = rows;
  }
  const pinned = isObj(raw.hostDevice) && isObj(raw.hostDevice.pinned) ? raw.hostDevice.pinned : null;
  if (pinned && pos(pinned.h2dBytesPerSecond)) m.hostToDeviceBytesPerSecond = pos(pinned.h2dBytesPerSecond);
  const pageable = isObj(raw.hostDevice) && isObj(raw.hostDevice.pageable) ? raw.hostDevice.pageable : null;
  if (pageable && pos(pageable.h2dBytesPerSecond)) m.hostToDevicePageableBytesPerSecond = pos(pageable.h2dBytesPerSecond);
  if (isObj(raw.memoryBandwidth) && pos(raw.memoryBandwidth.bytesPerSecond))
    m.memoryBandwidthBytesPerSecond = pos(raw.memoryBandwidth.bytesPerSecond);
  // the fixture driver's memoryBandwidth.points, or the Measurement's memoryBandwidthByThreads
  const byThreads =
    isObj(raw.memoryBandwidth) && Array.isArray(raw.memoryBandwidth.points)
      ? raw.memoryBandwidth.points
      : Array.isArray(raw.memoryBandwidthByThreads)
        ? raw.memoryBandwidthByThreads
        : null;
  if (byThreads) {
    const rows = byThreads
      .filter(isObj)
      .map((e) => ({ threads: Math.round(pos(e.threads) ?? 0), bytesPerSecond: pos(e.bytesPerSecond) ?? 0 }))
      .filter((r) => r.threads > 0 && r.bytesPerSecond > 0)
      .sort((a, b) => a.threads - b.threads);
    if (rows.length) m.memoryBandwidthByThreads = rows;
  }
  if (isObj(raw.cpuAdam) && Array.isArray(raw.cpuAdam.points)) {
    const rows = sweepFrom(raw.cpuAdam.points);
    if (rows.length) m.cpuAdam = rows;
  }
  if (pos(raw.memoryBandwidthBytesPerSecond)) m.memoryBandwidthBytesPerSecond = pos(raw.memoryBandwidthBytesPerSecond);
  if (isObj(raw.torchAdam) && isObj(raw.torchAdam.paramsPerSecond) && pos(raw.torchAdam.threads)) {
    const r = raw.torchAdam.paramsPerSecond;
    const t: NonNullable<TunerMeasurements['torchAdam']> = { threads: Math.round(pos(raw.torchAdam.threads)!) };
    for (const k of ['plain', 'foreach', 'fused'] as const) if (pos(r[k])) t[k] = pos(r[k]);
    if (t.plain || t.foreach || t.fused) m.torchAdam = t;
  }
  const perc = pos(raw.recommendedCoresPerc);
  if (perc !== undefined && perc < 1) m.recommendedCoresPerc = perc;

  // other shapes, found by key names wherever they sit
  walk(raw, (key, value, parent) => {
    const k = key.toLowerCase();
    if (!m.cpuAdam && /adam/.test(k)) {
      const rows = sweepFrom(Array.isArray(value) ? value : isObj(value) ? (value.sweep ?? value.results ?? value.points) : undefined);
      if (rows.length) m.cpuAdam = rows;
    }
    const n = pos(value);
    if (n === undefined) return;
    const scaled = /gbps|gb_s|gbpers/.test(k) ? n * 1e9 : n;
    const context = Object.keys(parent).join(' ').toLowerCase();
    if (!m.hostToDeviceBytesPerSecond && /(h2d|hosttodevice|host_to_device)/.test(k) && /(bytes|gb)/.test(k) && !/pageable/.test(k))
      m.hostToDeviceBytesPerSecond = scaled;
    if (!m.memoryBandwidthBytesPerSecond && /(memorybandwidth|membw|memory_bandwidth)/.test(k)) m.memoryBandwidthBytesPerSecond = scaled;
    if (!m.gpuMatmulTflops && /matmul/.test(k) && /tflops/.test(k)) m.gpuMatmulTflops = n;
    if (!m.diskBytesPerSecond && /(disk|nvme)/.test(k) && /(bytes|gb)/.test(k) && /(read|bytespersecond)/.test(k + context))
      m.diskBytesPerSecond = scaled;
  });
  if (m.cpuAdam) m.cpuAdam.sort((a, b) => a.threads - b.threads);
  return Object.keys(m).length ? m : undefined;
}
