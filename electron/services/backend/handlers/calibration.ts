// Calibration from history: completed runs of this machine, with the workload they ran and the
// step time they measured, fit the tuner's efficiency factors (tuner.fitEfficiency), so plans
// for this machine learn from its own runs. Predicted figures stay visible beside measured ones.
import type { Machine } from '../../../contract';
import { buildProfile, fitEfficiency, type CalibrationResult, type CalibrationSample } from '../../tuner';
import type { HistoryStore } from '../../history';

const MAX_RUNS = 50;
/** Fewer runs than this leave the model as catalogued: one run fits noise, not the machine. */
export const MIN_CALIBRATION_RUNS = 2;

interface StoredSpec {
  model?: { id?: string };
  seqLen?: number;
  microBatch?: number;
  gradAccum?: number;
  precision?: string;
  activationCheckpointing?: boolean;
  dsConfig?: { train_batch_size?: number } | null;
}

export function calibrationSamples(history: HistoryStore, machine: Machine, measurements: unknown): CalibrationSample[] {
  if (machine.gpus.length === 0) return []; // CPU smoke runs say nothing about the GPU model
  const { runs } = history.listRuns({ machineId: machine.machineId, status: 'completed', limit: MAX_RUNS });
  const profile = buildProfile(machine, 'detected', measurements as never);
  const samples: CalibrationSample[] = [];
  for (const run of runs) {
    if (!run.stepSeconds || run.stepSeconds <= 0) continue;
    const detail = history.getRun(run.id, 0);
    const spec = detail?.spec as StoredSpec | undefined;
    const config = detail?.config as { worldSize?: number } | undefined;
    if (!spec?.model?.id || !spec.seqLen || !spec.microBatch) continue;
    const gradAccum = spec.gradAccum ?? 1;
    const gpus = config?.worldSize ?? Math.max(1, Math.round((spec.dsConfig?.train_batch_size ?? spec.microBatch * gradAccum) / (spec.microBatch * gradAccum)));
    samples.push({
      strategyId: run.strategy,
      workload: {
        model: spec.model.id,
        seqLen: spec.seqLen,
        microBatch: spec.microBatch,
        gradAccum,
        gpus,
        precision: spec.precision === 'fp16' ? 'fp16' : 'bf16',
        activationCheckpointing: spec.activationCheckpointing ?? true,
      },
      profile,
      measuredStepSeconds: run.stepSeconds,
    });
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
    return fitEfficiency(samples);
  } catch {
    return null;
  }
}
