// A model the tuner has never seen (issue 46): Phi-3-mini on an H100, its runs exported by the app
// (resources/samples/h100-phi3-unseen.runs.json). Its runs are evidence like any preset's; figures hold the
// whole model out; a strategy with no runs on the machine kind carries the band measured with whole models
// and kinds held out (ZeRO-Offload micro 25 was "fits, ±3% (uncalibrated)" and ran out of memory).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MachineSchema, readStoredValue, type Machine, type ModelArch } from '../../../electron/contract';
import { createTunerPlanner } from '../../../electron/services/backend/tuner-planner';
import {
  buildProfile,
  calibrationNote,
  fitCalibration,
  gpuMemoryError,
  memoryEvidence,
  normalizeMeasurements,
  planWorkload,
  pointFromRun,
  sampleFromRun,
  UNSEEN_KIND_BAND,
  type CalibrationSample,
  type MemoryPoint,
} from '../../../electron/services/tuner';

const samplesDir = path.resolve(import.meta.dirname, '..', '..', '..', 'resources', 'samples');
const PHI3 = 'h100-phi3-unseen.runs.json';
const h100Measure = JSON.parse(fs.readFileSync(path.join(samplesDir, 'h100-boundary-device', 'measure.json'), 'utf8')) as unknown;

interface Row {
  run: { id: string; strategy: string; status: string; error_class: string | null; step_seconds: number | null; model: string | null };
  run_peak?: never;
  details: { spec?: unknown; config?: unknown };
  snapshot?: { body?: unknown } | null;
}
const read = (file: string) =>
  (JSON.parse(fs.readFileSync(path.join(samplesDir, file), 'utf8')) as { runs: (Row & { run: Record<string, unknown> })[] }).runs;
const facts = (r: Row & { run: Record<string, unknown> }) => ({
  runId: r.run.id,
  strategy: r.run.strategy,
  stepSeconds: r.run.step_seconds,
  spec: readStoredValue('spec', r.details.spec).value,
  config: readStoredValue('config', r.details.config).value,
  model: r.run.model,
  status: r.run.status,
  errorClass: r.run.error_class,
  peakGpuBytes: r.run.peak_gpu_bytes as number | null,
  peakHostBytes: r.run.peak_host_bytes as number | null,
});
const machineOf = (r: Row) => MachineSchema.parse(r.snapshot?.body);
const isH100 = (m: Machine) => /H100/.test(m.gpus[0]?.name ?? '');

/** Every sample run as a memory point, with its file and machine. */
const all = fs
  .readdirSync(samplesDir)
  .filter((f) => f.endsWith('.runs.json'))
  .flatMap((file) =>
    read(file).flatMap((r) => {
      const machine = MachineSchema.safeParse(r.snapshot?.body);
      const point = pointFromRun(facts(r));
      return point && machine.success && machine.data.gpus.length ? [{ file, point, machine: machine.data }] : [];
    }),
  );

describe('a model never seen (Phi-3-mini, imported config.json)', () => {
  it("reads the imported model's runs back as evidence (they were dropped: the id is no preset)", () => {
    const phi = all.filter((x) => x.file === PHI3);
    expect(phi.map((x) => x.point.outcome).sort()).toEqual(['cuda_oom', 'fits', 'fits', 'fits']);
    const model = phi[0].point.workload.model as ModelArch;
    expect(model).toMatchObject({ id: 'phi-3-mini', family: 'phi3', headDim: 96, numKvHeads: 32 });
    const r = read(PHI3)[0];
    const sample = sampleFromRun(facts(r), buildProfile(machineOf(r), 'file', normalizeMeasurements(h100Measure)));
    expect(sample?.measuredStepSeconds).toBeCloseTo(2.855, 2);
  });

  it('holds out every run of a model, all sequence lengths, for the leave-model-out figure', () => {
    // the H100's Llama-3.2-3B runs at seq 2048 and 4096, Llama-3.1-8B's, Phi-3's
    const samples: CalibrationSample[] = [];
    for (const file of ['h100-boundary.runs.json', 'h100-heldout-tune.runs.json', PHI3])
      for (const r of read(file)) {
        const s = sampleFromRun(facts(r), buildProfile(machineOf(r), 'file', normalizeMeasurements(h100Measure)));
        if (s) samples.push(s);
      }
    const fit = fitCalibration(samples);
    const row = fit.rows.find((x) => /llama-3\.2-3b s2048/.test(x.config))!;
    // the same run with the model's seq 4096 runs gone: leaving its workload out is then leaving the model out
    const only2048 = samples.filter((s) => !(s.workload.model === 'llama-3.2-3b' && s.workload.seqLen === 4096));
    const again = fitCalibration(only2048).rows.find((x) => x.runId === row.runId)!;
    expect(row.leaveModelOut).toBeCloseTo(again.leaveWorkloadOut, 9);
    expect(row.leaveModelOut).not.toBeCloseTo(row.leaveWorkloadOut, 6); // the seq 4096 runs did say something
    expect(fit.rmsLeaveModelOut).toBeGreaterThan(0);
    // the plan's and tune's calibration line print the whole-model figure, not model × sequence's
    const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
    expect(calibrationNote(fit)).toContain(`a model never run here ${pct(fit.rmsLeaveModelOut)}, every run of the model held out`);
  });
});

describe('a strategy with no runs on this machine kind (issue 46 item 3)', () => {
  it('carries the band measured with whole models and kinds held out (the worst error over the runs the model was not built on)', () => {
    const worst = Math.max(
      ...all.filter((x) => x.file !== PHI3).flatMap((x) => (gpuMemoryError(x.point) === null ? [] : [Math.abs(gpuMemoryError(x.point)!)])),
    );
    expect(UNSEEN_KIND_BAND).toBeGreaterThanOrEqual(worst);
    expect(UNSEEN_KIND_BAND - worst).toBeLessThan(0.005);
  });

  it('does not call ZeRO-Offload micro 25 of Phi-3-mini on the H100 "fits" (it ran out of memory)', () => {
    const oom = all.find((x) => x.file === PHI3 && x.point.outcome === 'cuda_oom')!;
    expect(oom.point).toMatchObject({ strategyId: 'zero2-offload', workload: { microBatch: 25, seqLen: 4096 } });
    // what the app had on that machine: the H100 kind's runs of the other models (none of ZeRO-Offload)
    const points: MemoryPoint[] = all.filter((x) => x.file !== PHI3 && isH100(x.machine)).map((x) => x.point);
    expect(points.some((p) => p.strategyId === 'zero2-offload')).toBe(false);
    const plan = planWorkload(
      { ...oom.point.workload, microBatch: 25 },
      { machine: oom.machine, machineSource: 'file', measurements: h100Measure as never, memory: memoryEvidence(points) },
    );
    const row = plan.strategies.find((s) => s.id === 'zero2-offload')!;
    expect(row.fit).toMatchObject({ bandSource: 'uncalibrated', bandRelative: UNSEEN_KIND_BAND });
    expect(row.fit?.verdict).not.toBe('fits');
    expect(row.fits).toBe(false);
  });
});

describe('planned is run, one figure per configuration (issue 46 item 5)', () => {
  const oom = all.find((x) => x.file === PHI3 && x.point.outcome === 'cuda_oom')!;
  const memory = memoryEvidence(all.filter((x) => x.file !== PHI3 && isH100(x.machine)).map((x) => x.point));
  const options = { machine: oom.machine, machineSource: 'file' as const, measurements: h100Measure as never, memory };

  it("runs the micro batch plan shows for the strategy (run planned without the kind's memory evidence: micro 4 where plan said 6)", async () => {
    const workload = { ...oom.point.workload, microBatch: 1 };
    const planned = planWorkload(workload, options).strategies.find((s) => s.id === 'gpu-zero3')!.spec;
    expect(planned.microBatch).toBe(6); // what the H100 ran at 71.6 GiB
    const figures = () => ({ measurements: h100Measure, memory });
    const [ran] = await createTunerPlanner({ figures }).specs(workload, ['gpu-zero3'], oom.machine);
    expect(ran).toMatchObject({ microBatch: planned.microBatch, knobs: planned.knobs, configHash: planned.configHash });
  });

  it('evaluates micro 25 once, searched or asked for: same knobs, same prediction, and the verdict names the spec figure', () => {
    const searched = planWorkload({ ...oom.point.workload, microBatch: 1 }, options).strategies.find((s) => s.id === 'zero2-offload')!;
    const asked = planWorkload({ ...oom.point.workload, microBatch: 25, searchMicroBatch: false }, options).strategies.find(
      (s) => s.id === 'zero2-offload',
    )!;
    expect(searched.edge?.microBatch).toBe(25);
    // the asked row ran the seed knobs (overlap_comm false) beside the searched edge's overlap_comm true
    expect(asked.spec.configHash).toBe(searched.edge!.spec.configHash);
    expect(asked.spec.prediction).toEqual(searched.edge!.spec.prediction);
    const peak = (asked.spec.prediction!.gpuPeakBytes / 2 ** 30).toFixed(1);
    expect(asked.reason).toMatch(
      new RegExp(`^at the edge of GPU memory: needs 76\\.\\d GiB ± .* \\(peak allocated ${peak} GiB, the spec's figure`),
    );
  });
});
