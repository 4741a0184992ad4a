// Measurements and calibration belong to a machine (its machineId). For the machine a plan is for —
// this host, a --machine file, or a `machine` in the request — the plan uses that machine's stored
// measurements (this host's own, or another machine's imported with `measure --import`) and fits
// per-strategy efficiency factors from that machine's completed runs (tuner.fitCalibration): every
// transport (CLI, app, serve) goes through here. A catalogued machine has neither.
// A machine with nothing of its own (a cloud instance started again: new hostname, new GPU UUIDs,
// new machineId) borrows from machines of the same kind seen in history (hardware/machine-kind.ts),
// and its notes say whose figures and runs they are.
import { formatDateTime, MachineSchema, type Machine } from '../../../contract';
import { loadMeasurementFor, machineKindWords, sameMachineKind, usedMeasurement } from '../../hardware';
import {
  buildProfile,
  calibrationNote,
  calibrationTable,
  fitCalibration,
  memoryEvidence,
  normalizeMeasurements,
  pointFromRun,
  sampleFromRun,
  type CalibrationResult,
  type CalibrationSample,
  type EfficiencyFactors,
  type MemoryEvidence,
  type MemoryPoint,
} from '../../tuner';
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

/** Machines in history of the same kind as `machine` (not itself), latest snapshot first found. */
export function sameKindMachineIds(history: HistoryStore, machine: Machine): string[] {
  try {
    return history
      .machineSnapshots()
      .filter((s) => s.machineId !== machine.machineId)
      .filter((s) => {
        const other = MachineSchema.safeParse(s.body);
        return other.success && sameMachineKind(machine, other.data);
      })
      .map((s) => s.machineId);
  } catch {
    return []; // an unreadable history only loses the borrowing
  }
}

/**
 * The measurements of `machine`: stored under its machineId; an old measurement that never recorded
 * its machine counts only for this host (`thisHost`), never for a file's machine. Without any, those
 * of the first machine of its kind (`kin`, sameKindMachineIds) that has some. The plan's note says
 * whose they are and when they were measured, in the app's one date format (formatDateTime).
 */
export function measurementsFor(dataDir: string, machine: Machine, thisHost: boolean, kin: readonly string[] = []): MachineFigures {
  const load = (id: string, own: boolean) => {
    try {
      return loadMeasurementFor(dataDir, id, own);
    } catch {
      return null;
    }
  };
  // the machine's own: the one picked, else the newest no figure flags as far from its others
  let own: ReturnType<typeof usedMeasurement> | null = null;
  try {
    own = usedMeasurement(dataDir, machine.machineId, thisHost);
  } catch {
    own = null;
  }
  const m = own?.used;
  if (m)
    return {
      measurements: m,
      note: `Host figures: measurements of this machine (${machine.machineId}, measured ${formatDateTime(m.measuredAt)}${own?.reason ? `: ${own.reason}` : ''}).`,
    };
  // The newest measurement of its kind: every re-measure of identical hardware supersedes the
  // last (an imported file from an earlier instance must not shadow a later native measure).
  const borrowed = kin
    .map((id) => ({ id, m: load(id, false) }))
    .filter((b): b is { id: string; m: NonNullable<typeof b.m> } => b.m !== null)
    .sort((a, b) => Date.parse(b.m.measuredAt) - Date.parse(a.m.measuredAt));
  if (borrowed.length > 0) {
    const { id, m: newest } = borrowed[0];
    const of = borrowed.length > 1 ? `, the newest of ${borrowed.length} measured machines of its kind` : '';
    return {
      measurements: newest,
      note: `Host figures: measurements of machine ${id}, of the same kind as this one (${machineKindWords(machine)}), measured ${formatDateTime(newest.measuredAt)}${of} — none of ${machine.machineId} itself are stored (measure it to use its own: Hardware page, or \`npm run cli -- measure\`).`,
    };
  }
  return {
    measurements: undefined,
    note: `Host figures: catalogued — no measurements of machine ${machine.machineId} are stored (${thisHost ? 'measure it: Hardware page, or `npm run cli -- measure`' : 'import its measurements: `npm run cli -- measure --import FILE --machine detect.json`'}).`,
  };
}

/**
 * Whose runs calibrate a plan: the machine's own and those of machines of its kind (identical
 * hardware: a re-started cloud instance, a colleague's twin workstation, a committed sample), pooled —
 * the per-strategy fit wants every configuration measured on that hardware.
 */
export interface CalibrationSource {
  machineIds: string[];
  /** Completed runs of the machine itself. */
  own: number;
  /** Completed runs of machines of its kind. */
  kin: number;
}

export function calibrationSource(
  history: HistoryStore,
  machine: Machine,
  kinIds: readonly string[] = sameKindMachineIds(history, machine),
): CalibrationSource {
  const count = (machineId: string) => history.listRuns({ machineId, status: 'completed', limit: 1 }).total;
  const own = count(machine.machineId);
  if (machine.gpus.length === 0) return { machineIds: [machine.machineId], own, kin: 0 };
  return { machineIds: [machine.machineId, ...kinIds], own, kin: kinIds.reduce((a, id) => a + count(id), 0) };
}

/** A run's stored spec and config line. One plan reads each completed run twice — for the time
 *  calibration and for the memory evidence — so forMachine hands both the same memo (runDetails). */
type DetailOf = (id: string) => ReturnType<HistoryStore['getRun']>;

/** getRun(id, 0), each run read once per plan. */
function runDetails(history: HistoryStore): DetailOf {
  const read = new Map<string, ReturnType<HistoryStore['getRun']>>();
  return (id) => {
    if (!read.has(id)) read.set(id, history.getRun(id, 0));
    return read.get(id)!;
  };
}

export function calibrationSamples(
  history: HistoryStore,
  machine: Machine,
  measurements: unknown,
  source = calibrationSource(history, machine),
  detailOf: DetailOf = (id) => history.getRun(id, 0),
): CalibrationSample[] {
  if (machine.gpus.length === 0) return []; // CPU smoke runs say nothing about the GPU model
  const runs = source.machineIds
    .flatMap((machineId) => history.listRuns({ machineId, status: 'completed', limit: MAX_RUNS }).runs)
    .slice(0, MAX_RUNS);
  const profile = buildProfile(machine, 'detected', normalizeMeasurements(measurements));
  const samples: CalibrationSample[] = [];
  for (const run of runs) {
    const detail = detailOf(run.id);
    const sample = sampleFromRun(
      {
        runId: run.id,
        strategy: run.strategy,
        stepSeconds: run.stepSeconds ?? null,
        spec: detail?.spec,
        config: detail?.config,
        model: run.model,
      },
      profile,
    );
    if (sample) samples.push(sample);
  }
  return samples;
}

export function calibrate(
  history: HistoryStore,
  machine: Machine,
  measurements: unknown,
  source = calibrationSource(history, machine),
  detailOf?: DetailOf,
): CalibrationResult | null {
  let samples: CalibrationSample[];
  try {
    samples = calibrationSamples(history, machine, measurements, source, detailOf);
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

/**
 * The memory evidence of a machine: its runs and those of its kind that completed (with their peak) or
 * ran out of memory — boundary points — and the memory model's error measured on them. A GPU-less
 * machine has none (CPU smoke runs say nothing about GPU memory).
 */
export function memoryEvidenceFor(
  history: HistoryStore,
  machine: Machine,
  source: CalibrationSource,
  detailOf: DetailOf = (id) => history.getRun(id, 0),
): MemoryEvidence | undefined {
  if (machine.gpus.length === 0) return undefined;
  const points: MemoryPoint[] = [];
  try {
    for (const machineId of source.machineIds)
      for (const status of ['completed', 'failed'] as const)
        for (const run of history.listRuns({ machineId, status, limit: MAX_RUNS }).runs) {
          if (status === 'failed' && run.errorClass !== 'cuda_oom' && run.errorClass !== 'host_oom') continue;
          const detail = detailOf(run.id);
          const point = pointFromRun({
            runId: run.id,
            strategy: run.strategy,
            spec: detail?.spec,
            config: detail?.config,
            model: run.model,
            status: run.status,
            errorClass: run.errorClass,
            peakGpuBytes: run.peakGpuBytes,
            peakHostBytes: run.peakHostBytes,
            errorMessage: run.errorMessage,
          });
          if (point) points.push(point);
        }
    return memoryEvidence(points);
  } catch {
    return undefined; // an unreadable history only loses the evidence: the model's verdicts stand, uncalibrated
  }
}

export interface MachineCalibration {
  measurements: unknown;
  calibration: Record<string, EfficiencyFactors> | undefined;
  fit: CalibrationResult | null;
  notes: string[];
  /** Whose measurements and which one, in words (the first note). */
  hostFigures: string;
  /** The machines whose runs count for this one: itself and those of its kind. */
  runMachineIds: string[];
  memory: MemoryEvidence | undefined;
}

/** Everything a plan for `machine` needs from this data folder: its measurements, its calibration, and the notes saying which. */
export function forMachine(dataDir: string, history: HistoryStore, machine: Machine, thisHost: boolean): MachineCalibration {
  // read the history's machine snapshots once: both the measurements and the runs may be borrowed
  const kin = sameKindMachineIds(history, machine);
  const figures = measurementsFor(dataDir, machine, thisHost, kin);
  let source: CalibrationSource = { machineIds: [machine.machineId], own: 0, kin: 0 };
  try {
    source = calibrationSource(history, machine, kin);
  } catch {
    // keep the machine's own (none): planning must not fail on history
  }
  const detailOf = runDetails(history);
  const fit = calibrate(history, machine, figures.measurements, source, detailOf);
  const notes = [figures.note];
  const self = thisHost ? 'this machine' : `machine ${machine.machineId}`;
  const where = source.kin
    ? `${self} (${source.own}) and machine(s) ${source.machineIds.slice(1).join(', ')} of the same kind (${machineKindWords(machine)}; ${source.kin})`
    : self;
  if (fit) notes.push(calibrationNote(fit, where));
  else if (machine.gpus.length === 0)
    notes.push('Not calibrated: this machine has no GPU, and CPU smoke runs say nothing about GPU speed.');
  else notes.push(`Not calibrated: fewer than ${MIN_CALIBRATION_RUNS} completed runs of machine ${machine.machineId} in history.`);
  return {
    measurements: figures.measurements,
    calibration: fit ? calibrationTable(fit) : undefined,
    fit,
    notes,
    hostFigures: figures.note,
    runMachineIds: source.machineIds,
    memory: memoryEvidenceFor(history, machine, source, detailOf),
  };
}
