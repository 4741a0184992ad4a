// The committed sample runs (resources/samples/*.runs.json) as the tuner benches read them: each run's memory
// point (peak or out-of-memory boundary point), its calibration sample (judged on its own machine with its
// kind's measurements), its speed, and the machine it ran on; and the held-out plan of one workload on one
// machine kind, calibrated and given memory evidence as the app gathers them, that workload's own runs left out.
// bench/tuner-boundary.ts (the pick, memory, verdicts) and bench/tune-replay.ts (tune's loop) share it.
import fs from 'node:fs';
import path from 'node:path';
import { MachineSchema, readStoredValue, type Machine, type PlanResult, type Workload } from '../electron/contract';
import {
  buildProfile,
  calibrationTable,
  fitCalibration,
  memoryEvidence,
  modelKey,
  normalizeMeasurements,
  parseWorkload,
  planWorkload,
  pointFromRun,
  sampleFromRun,
  type CalibrationSample,
  workloadKey,
  type MemoryPoint,
} from '../electron/services/tuner';
import { h200KindMachine, kindMeasurements, kindOf } from './machine-kinds';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const samplesDir = path.join(root, 'resources', 'samples');
// Each run is judged on its own machine (its stored snapshot) with its kind's measurements (machine-kinds.ts).
export const kindMachine: Machine = h200KindMachine;
export const machineOfRun = new Map<string, Machine>(); // runId → the machine it ran on
export const fileOfRun = new Map<string, string>(); // runId → its resources/samples file (constant-provenance.ts)

interface Row {
  run: {
    id: string;
    strategy: string;
    status: string;
    error_class: string | null;
    error_message?: string | null;
    step_seconds: number | null;
    tokens_per_second: number | null;
    tflops_per_gpu: number | null;
    peak_gpu_bytes: number | null;
    peak_host_bytes: number | null;
    model: string | null;
  };
  details: { spec?: unknown; config?: unknown };
  snapshot?: { body?: unknown } | null;
}

export const points: MemoryPoint[] = [];
export const samples: CalibrationSample[] = [];
export const speed = new Map<string, number>(); // runId → tokens/s
for (const file of fs.readdirSync(samplesDir).filter((f) => f.endsWith('.runs.json'))) {
  for (const r of (JSON.parse(fs.readFileSync(path.join(samplesDir, file), 'utf8')) as { runs: Row[] }).runs) {
    const machine = MachineSchema.safeParse(r.snapshot?.body);
    if (!machine.success || machine.data.gpus.length === 0) continue;
    const p = pointFromRun({
      runId: r.run.id,
      strategy: r.run.strategy,
      spec: readStoredValue('spec', r.details.spec).value,
      config: readStoredValue('config', r.details.config).value,
      model: r.run.model,
      status: r.run.status,
      errorClass: r.run.error_class,
      peakGpuBytes: r.run.peak_gpu_bytes,
      peakHostBytes: r.run.peak_host_bytes,
      errorMessage: r.run.error_message,
    });
    if (p) points.push(p);
    machineOfRun.set(r.run.id, machine.data);
    fileOfRun.set(r.run.id, file);
    const profile = buildProfile(machine.data, 'file', normalizeMeasurements(kindMeasurements(machine.data)));
    const s = sampleFromRun(
      {
        runId: r.run.id,
        strategy: r.run.strategy,
        stepSeconds: r.run.step_seconds,
        spec: readStoredValue('spec', r.details.spec).value,
        config: readStoredValue('config', r.details.config).value,
        model: r.run.model,
      },
      profile,
    );
    if (s) samples.push(s);
    if (r.run.status === 'completed' && r.run.tokens_per_second) speed.set(r.run.id, r.run.tokens_per_second);
  }
}
// A workload (model × sequence length) is held out on every kind at once; the pick and tune rows are per
// machine kind and workload ("1× NVIDIA H100 80GB HBM3 llama-3.2-3b s2048").
export const workloadOf = (p: { workload: Parameters<typeof workloadKey>[0] }) => workloadKey(p.workload);
/** The model of a run (preset id or imported config's id): the unit the headline figures hold out. */
export const modelOf = (p: { workload: Parameters<typeof modelKey>[0] }) => modelKey(p.workload);
/**
 * What a held-out figure leaves out of calibration and memory evidence: every run of the model (all sequence
 * lengths; the headline, issue 46 — a model's other sequence lengths say too much about it to count as unseen),
 * or only its runs at that sequence length (model × sequence, the older definition, kept as a second column).
 */
export type HoldOut = 'model' | 'workload';
export const HOLD_OUT_WORDS: Record<HoldOut, string> = {
  model: 'model held out (every run of it)',
  workload: 'model × sequence held out',
};
/** Whether run `p` is held out when `w`'s figure is made. */
export const heldOut = (holdOut: HoldOut, w: { workload: Workload }, p: { workload: Workload }) =>
  holdOut === 'model' ? modelOf(p) === modelOf(w) : workloadOf(p) === workloadOf(w);
export const kindOfRun = (runId: string | undefined) => kindOf(machineOfRun.get(runId ?? '') ?? kindMachine);
export const groupOf = (p: { runId: string; workload: Parameters<typeof workloadKey>[0] }) => `${kindOfRun(p.runId)} ${workloadOf(p)}`;
/** The fastest of these runs by measured tokens/s (each must have a speed). */
export const fastest = <T extends { runId: string }>(runs: T[]): T =>
  runs.reduce((a, b) => (speed.get(b.runId)! > speed.get(a.runId)! ? b : a));

// Issue 25's goals are on the machine it names ("on the H200 GPU machine"): the figures are per machine kind,
// the H200's against the goal and every other kind's printed beside it with the same goal.
export const ISSUE_KIND = '1× NVIDIA H200';
/** The kinds in a fixed order: the issue's first, then the others by name. */
export const kindsOf = (...maps: Map<string, unknown>[]) =>
  [...new Set(maps.flatMap((m) => [...m.keys()]))].sort((a, b) => (a === ISSUE_KIND ? -1 : b === ISSUE_KIND ? 1 : a.localeCompare(b)));
/** A figure id's suffix for a kind: none for the issue's, else the kind in kebab case. */
export const kindId = (kind: string) =>
  kind === ISSUE_KIND
    ? ''
    : `-${kind
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .toLowerCase()}`;
export const kindWords = (kind: string) =>
  kind === ISSUE_KIND ? `on the ${kind} (the issue's machine)` : `on the ${kind} (a kind the issue did not name)`;

/**
 * The plan for `workload` on `machine` (of machine kind `kind`) as the app makes it with that workload's own runs
 * held out (`holdOut`: every run of its model, or those of its model × sequence): calibrated from the kind's other
 * runs (as calibration.ts does), memory evidence from the kind's other runs — plus `extra` runs of the workload
 * itself (a replayed tune's trials, which the real loop stores and refits from).
 */
export function heldOutPlan(
  workload: Workload,
  machine: Machine,
  kind: string,
  extra: { samples: CalibrationSample[]; points: MemoryPoint[] } = { samples: [], points: [] },
  holdOut: HoldOut = 'model',
): PlanResult {
  const out = (p: { workload: Workload }) => heldOut(holdOut, { workload }, p);
  const train = [...samples.filter((s) => kindOfRun(s.runId) === kind && !out({ workload: parseWorkload(s.workload) })), ...extra.samples];
  const calibration = train.length >= 2 ? calibrationTable(fitCalibration(train)) : undefined;
  return planWorkload(
    {
      model: workload.model,
      seqLen: workload.seqLen,
      microBatch: 1,
      gpus: workload.gpus,
      nodes: workload.nodes,
      precision: workload.precision,
      activationCheckpointing: workload.activationCheckpointing,
    },
    {
      machine,
      machineSource: 'file',
      measurements: kindMeasurements(machine) as never,
      calibration,
      // as the app gathers it (calibration.ts memoryEvidenceFor): runs of this machine kind only
      memory: memoryEvidence([...points.filter((p) => !out(p) && kindOfRun(p.runId) === kind), ...extra.points]),
    },
  );
}
