// <dataDir>/measurements.json: the latest host measurement (for the tuner) and a short history.
// Written through a temporary file and a rename, so a crash never leaves half a file.
import fs from 'node:fs';
import path from 'node:path';
import { MeasurementSchema, type Measurement } from '../../../contract';

export const MEASUREMENTS_FILE = 'measurements.json';
const HISTORY_LIMIT = 20;

interface StoreFile {
  schemaVersion: 1;
  latest: Measurement;
  history: Measurement[]; // newest first, latest included
}

export function measurementsPath(dataDir: string): string {
  return path.join(dataDir, MEASUREMENTS_FILE);
}

function readFile(dataDir: string): StoreFile | null {
  try {
    const raw = JSON.parse(fs.readFileSync(measurementsPath(dataDir), 'utf8')) as Partial<StoreFile>;
    const latest = MeasurementSchema.safeParse(raw.latest);
    if (!latest.success) return null;
    const history = (Array.isArray(raw.history) ? raw.history : [])
      .map((m) => MeasurementSchema.safeParse(m))
      .filter((r) => r.success)
      .map((r) => r.data as Measurement);
    return { schemaVersion: 1, latest: latest.data, history };
  } catch {
    return null; // missing or unreadable: no measurement yet
  }
}

/** The latest stored measurement, or null when the host was never measured (or the file is bad). */
export function loadLatestMeasurement(dataDir: string): Measurement | null {
  return readFile(dataDir)?.latest ?? null;
}

export function loadMeasurementHistory(dataDir: string): Measurement[] {
  return readFile(dataDir)?.history ?? [];
}

export function saveMeasurement(dataDir: string, measurement: Measurement): void {
  const previous = readFile(dataDir)?.history ?? [];
  const file: StoreFile = { schemaVersion: 1, latest: measurement, history: [measurement, ...previous].slice(0, HISTORY_LIMIT) };
  fs.mkdirSync(dataDir, { recursive: true });
  const target = measurementsPath(dataDir);
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(file, null, 2) + '\n');
  fs.renameSync(tmp, target);
}
