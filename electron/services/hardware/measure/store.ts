// <dataDir>/measurements.json: the latest host measurement (for the tuner), a short history, and
// the latest measurement of every machine by its machineId (this host's, and others' imported
// with `measure --import FILE --machine detect.json`): a plan for a machine uses that machine's
// figures, never another host's; and which of a machine's measurements its plans use where the user
// picked one (choice.ts says the rule without a pick). Written through a temporary file and a rename, so a crash never
// leaves half a file.
import fs from 'node:fs';
import path from 'node:path';
import { MeasurementSchema, type Measurement } from '../../../contract';
import { writeJsonAtomic } from '../../../kernel';
import { recommendCoresPerc, recommendWorkerThreads } from './knee';

export const MEASUREMENTS_FILE = 'measurements.json';
const HISTORY_LIMIT = 20;

interface StoreFile {
  schemaVersion: 1;
  latest: Measurement | null;
  history: Measurement[]; // newest first, latest included
  /** The latest measurement of each machine, by machineId. */
  byMachine: Record<string, Measurement>;
  /** The measurement the user picked for a machine's plans (its measuredAt), by machineId; absent: the rule decides. */
  use?: Record<string, string>;
}

export function measurementsPath(dataDir: string): string {
  return path.join(dataDir, MEASUREMENTS_FILE);
}

function readFile(dataDir: string): StoreFile | null {
  try {
    const raw = JSON.parse(fs.readFileSync(measurementsPath(dataDir), 'utf8')) as Partial<StoreFile>;
    const latest = MeasurementSchema.safeParse(raw.latest);
    const history = (Array.isArray(raw.history) ? raw.history : [])
      .map((m) => MeasurementSchema.safeParse(m))
      .filter((r) => r.success)
      .map((r) => r.data as Measurement);
    const byMachine: Record<string, Measurement> = {};
    for (const [id, m] of Object.entries(raw.byMachine && typeof raw.byMachine === 'object' ? raw.byMachine : {})) {
      const parsed = MeasurementSchema.safeParse(m);
      if (parsed.success) byMachine[id] = parsed.data;
    }
    const use: Record<string, string> = {};
    for (const [id, at] of Object.entries(raw.use && typeof raw.use === 'object' ? raw.use : {})) if (typeof at === 'string') use[id] = at;
    if (!latest.success && Object.keys(byMachine).length === 0) return null;
    return { schemaVersion: 1, latest: latest.success ? latest.data : null, history, byMachine, use };
  } catch {
    return null; // missing or unreadable: no measurement yet
  }
}

/** The latest stored measurement, or null when the host was never measured (or the file is bad). */
export function loadLatestMeasurement(dataDir: string): Measurement | null {
  return readFile(dataDir)?.latest ?? null;
}

/**
 * The latest measurement of one machine. A measurement that never recorded its machine (files
 * written before machineId was kept) counts as this host's only when `isThisHost`: it was taken
 * here, so it describes the detected machine and nothing else.
 */
export function loadMeasurementFor(dataDir: string, machineId: string, isThisHost = false): Measurement | null {
  const file = readFile(dataDir);
  if (!file) return null;
  if (file.byMachine[machineId]) return file.byMachine[machineId];
  if (file.latest?.machineId === machineId) return file.latest;
  if (isThisHost && file.latest && !file.latest.machineId) return file.latest;
  return null;
}

export function loadMeasurementHistory(dataDir: string): Measurement[] {
  return readFile(dataDir)?.history ?? [];
}

/**
 * Store a measurement. This host's (`imported` false) becomes the latest and joins the history;
 * an imported one (another machine's, by its machineId) is kept only under that machine.
 */
export function saveMeasurement(dataDir: string, measurement: Measurement, imported = false): void {
  const old = readFile(dataDir);
  const byMachine = { ...(old?.byMachine ?? {}) };
  if (measurement.machineId) byMachine[measurement.machineId] = measurement;
  const use = old?.use ?? {};
  const file: StoreFile = imported
    ? { schemaVersion: 1, latest: old?.latest ?? null, history: old?.history ?? [], byMachine, use }
    : {
        schemaVersion: 1,
        latest: measurement,
        history: [measurement, ...(old?.history ?? [])].slice(0, HISTORY_LIMIT),
        byMachine,
        use,
      };
  writeJsonAtomic(measurementsPath(dataDir), file);
}

/**
 * Every stored measurement of one machine, newest first: this host's history and the latest kept
 * under its id (an imported machine has only that one). Those that never recorded their machine
 * count as this host's only when `isThisHost`, as in loadMeasurementFor.
 */
export function machineMeasurements(dataDir: string, machineId: string, isThisHost = false): Measurement[] {
  const file = readFile(dataDir);
  if (!file) return [];
  const mine = (m: Measurement) => m.machineId === machineId || (isThisHost && !m.machineId);
  const all = [...file.history.filter(mine), ...(file.byMachine[machineId] ? [file.byMachine[machineId]] : [])];
  if (file.latest && mine(file.latest)) all.push(file.latest);
  const seen = new Set<string>();
  return all
    .filter((m) => !seen.has(m.measuredAt) && seen.add(m.measuredAt))
    .sort((a, b) => Date.parse(b.measuredAt) - Date.parse(a.measuredAt));
}

/** The measurement picked for a machine's plans (its measuredAt), or null: none picked. */
export function pickedMeasurement(dataDir: string, machineId: string): string | null {
  return readFile(dataDir)?.use?.[machineId] ?? null;
}

/** Pick a machine's measurement for its plans by its measuredAt; null goes back to the rule. Needs a stored file. */
export function pickMeasurement(dataDir: string, machineId: string, measuredAt: string | null): void {
  const file = readFile(dataDir);
  if (!file) throw new Error('no measurements are stored in this data folder');
  const use = { ...(file.use ?? {}) };
  if (measuredAt === null) delete use[machineId];
  else use[machineId] = measuredAt;
  writeJsonAtomic(measurementsPath(dataDir), { ...file, use });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const nonNegativeNumber = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/**
 * A measurement file of another machine → a Measurement of that machine: the JSON `measure --json`
 * prints, or the native driver's output (native/tools/driver.cpp: cpuAdam.points, memoryBandwidth,
 * hostDevice). `machineId` names the machine it describes (from its `detect --json`).
 */
export function measurementFromFile(raw: unknown, machineId: string, measuredAt = new Date().toISOString()): Measurement {
  const direct = MeasurementSchema.safeParse(raw);
  if (direct.success) return { ...direct.data, machineId };
  if (!isObj(raw))
    throw new Error('not a measurement: expected the JSON that `npm run cli -- measure --json` prints, or the native driver’s output');
  const adam = isObj(raw.cpuAdam) && Array.isArray(raw.cpuAdam.points) ? raw.cpuAdam.points : Array.isArray(raw.cpuAdam) ? raw.cpuAdam : [];
  const cpuAdam = adam
    .filter(isObj)
    .map((p) => ({ threads: nonNegativeNumber(p.threads) ?? 0, paramsPerSecond: nonNegativeNumber(p.paramsPerSecond) ?? 0 }))
    .filter((p) => p.threads > 0 && p.paramsPerSecond > 0);
  const bw = isObj(raw.memoryBandwidth)
    ? nonNegativeNumber(raw.memoryBandwidth.bytesPerSecond)
    : nonNegativeNumber(raw.memoryBandwidthBytesPerSecond);
  const bwPoints = (isObj(raw.memoryBandwidth) && Array.isArray(raw.memoryBandwidth.points) ? raw.memoryBandwidth.points : [])
    .filter(isObj)
    .map((p) => ({ threads: nonNegativeNumber(p.threads) ?? 0, bytesPerSecond: nonNegativeNumber(p.bytesPerSecond) ?? 0 }))
    .filter((p) => p.threads > 0 && p.bytesPerSecond > 0)
    .sort((a, b) => a.threads - b.threads);
  const hd = isObj(raw.hostDevice) && raw.hostDevice.available !== false ? raw.hostDevice : null;
  const pair = (v: unknown) =>
    isObj(v)
      ? { h2dBytesPerSecond: nonNegativeNumber(v.h2dBytesPerSecond) ?? 0, d2hBytesPerSecond: nonNegativeNumber(v.d2hBytesPerSecond) ?? 0 }
      : { h2dBytesPerSecond: 0, d2hBytesPerSecond: 0 };
  const simd = String(raw.simdPath ?? 'scalar');
  const m: Measurement = {
    cpuAdam,
    recommendedCoresPerc: null,
    recommendedThreads: null,
    simdPath: (['avx512', 'avx2', 'neon', 'scalar'].includes(simd) ? simd : 'scalar') as Measurement['simdPath'],
    logicalCores: nonNegativeNumber(raw.logicalCores) ?? undefined,
    memoryBandwidthBytesPerSecond: bw,
    ...(bwPoints.length ? { memoryBandwidthByThreads: bwPoints } : {}),
    hostDevice: hd
      ? { pinned: pair(hd.pinned), pageable: pair(hd.pageable), deviceName: typeof hd.deviceName === 'string' ? hd.deviceName : null }
      : null,
    hostDeviceReason: hd ? null : 'not in the imported file',
    measuredAt,
    durationMs: 0,
    machineId,
  };
  if (cpuAdam.length && m.logicalCores) {
    m.recommendedCoresPerc = recommendCoresPerc(cpuAdam, m.logicalCores);
    m.recommendedThreads = recommendWorkerThreads(cpuAdam, m.logicalCores);
  }
  if (cpuAdam.length === 0 && bw === null && !hd)
    throw new Error('not a measurement: no CPU Adam sweep, memory bandwidth or host-device copy in it');
  return MeasurementSchema.parse(m);
}
