// Measurements and calibration belong to a machine (its machineId). For the machine a plan is for —
// this host, a --machine file, or a `machine` in the request — the plan uses that machine's stored
// measurements (this host's own, or another machine's imported with `measure --import`) and fits
// per-strategy efficiency factors from that machine's completed runs (tuner.fitCalibration): every
// transport (CLI, app, serve) goes through here. A catalogued machine has neither.
import type { Machine } from '../../../contract';
import { loadMeasurementFor } from '../../hardware';
import { buildProfile, calibrationNote, calibrationTable, fitCalibration, normalizeMeasurements, sampleFromRun, type CalibrationResult, type CalibrationSample, type EfficiencyFactors } from '../../tuner';
import type { HistoryStore } from '../../history';

const MAX_RUNS = 200;
/** Fewer runs than this leave the model as catalogued: one run fits noise, not the machine. */
export const MIN_CALIBRATION_RUNS = 2;

/** This host's machine, or another one shown through --machine FILE (which says so in its warnings). */
export function isFromFile(machine: Machine): boolean {
  return machine.warnings.some((w) => w.id === 'machine-from-file');
}

export interface MachineFigures {
  measurements: unknown;
  /** A line for the plan's notes: whose measurements, or that catalogued figures stand in. */
  note: string;
}

/**
 * The measurements of `machine`: stored under its machineId; an old measurement that never recorded
 * its machine counts only for this host (`thisHost`), never for a file's machine.
 */
export function measurementsFor(dataDir: string, machine: Machine, thisHost: boolean): MachineFigures {
  let m = null;
  try {
    m = loadMeasurementFor(dataDir, machine.machineId, thisHost);
  } catch {
    m = null;
  }
  if (m) return { measurements: m, note: `Host figures: measurements of this machine (${machine.machineId}, measured ${m.measuredAt}).` };
  return {
    measurements: undefined,
    note: `Host figures: catalogued — no measurements of machine ${machine.machineId} are stored (${thisHost ? 'run `measure`' : 'import its measurements with `measure --import FILE --machine detect.json`'}).`,
  };
}

export function calibrationSamples(history: HistoryStore, machine: Machine, measurements: unknown): CalibrationSample[] {
  if (machine.gpus.length === 0) return []; // CPU smoke runs say nothing about the GPU model
  const { runs } = history.listRuns({ machineId: machine.machineId, status: 'completed', limit: MAX_RUNS });
  const profile = buildProfile(machine, 'detected', normalizeMeasurements(measurements));
  const samples: CalibrationSample[] = [];
  for (const run of runs) {
    const detail = history.getRun(run.id, 0);
    const sample = sampleFromRun({ runId: run.id, strategy: run.strategy, stepSeconds: run.stepSeconds ?? null, spec: detail?.spec, config: detail?.config, model: run.model }, profile);
    if (sample) samples.push(sample);
  }
  return samples;
}

export function calibrate(history: HistoryStore, machine: Machine, measurements: unknown): CalibrationResult | null {
  let samples: CalibrationSample[];
  try {
    samples = calibrationSamples(history, machine, measurements);
  } catch {
    return null; // a run whose preset no longer exists must not break planning
  }
  if (samples.length < MIN_CALIBRATION_RUNS) return null;
  try {
    return fitCalibration(samples);
  } catch {
    return null;
  }
}

export interface MachineCalibration {
  measurements: unknown;
  calibration: Record<string, EfficiencyFactors> | undefined;
  fit: CalibrationResult | null;
  notes: string[];
}

/** Everything a plan for `machine` needs from this data folder: its measurements, its calibration, and the notes saying which. */
export function forMachine(dataDir: string, history: HistoryStore, machine: Machine, thisHost: boolean): MachineCalibration {
  const figures = measurementsFor(dataDir, machine, thisHost);
  const fit = calibrate(history, machine, figures.measurements);
  const notes = [figures.note];
  if (fit) notes.push(calibrationNote(fit, thisHost ? 'this machine' : `machine ${machine.machineId}`));
  else if (machine.gpus.length === 0) notes.push('Not calibrated: this machine has no GPU, and CPU smoke runs say nothing about GPU speed.');
  else notes.push(`Not calibrated: fewer than ${MIN_CALIBRATION_RUNS} completed runs of machine ${machine.machineId} in history.`);
  return { measurements: figures.measurements, calibration: fit ? calibrationTable(fit) : undefined, fit, notes };
}
