// The tuner service as the orchestrator's Planner: the same spec generation and the same
// predictions the Plan view shows, so a run executes exactly what was planned.
import * as tuner from '../tuner';
import type { Machine } from '../../contract';
import type { Planner, Prediction, SpecParts } from './planner';

/** Reduce the tuner's prediction to what is stored beside the measurement (the whole object is
 *  kept as JSON; the two headline figures are also columns for comparisons). */
function toPrediction(value: unknown): Prediction | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const pick = (...keys: string[]) => {
    for (const k of keys) {
      const x = k.split('.').reduce<unknown>((o, part) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[part] : undefined), v);
      if (typeof x === 'number' && Number.isFinite(x)) return x;
    }
    return null;
  };
  return {
    ...v,
    tflopsPerGpu: pick('tflopsPerGpu', 'throughput.tflopsPerGpu', 'time.tflopsPerGpu'),
    stepSeconds: pick('stepSeconds', 'throughput.stepSeconds', 'time.stepSeconds'),
  };
}

export const tunerPlanner: Planner = {
  buildRunSpec(workload, strategyId): SpecParts {
    const spec = tuner.buildRunSpec(workload, strategyId);
    return { ...spec, model: { ...spec.model } }; // (spread: the contract's passthrough model type is open)
  },
  predict(workload, strategyId, machine) {
    // Without a snapshot there is nothing to predict against. Host measurements (CPU Adam rate,
    // copy bandwidth) are not passed yet: the prediction uses the tuner's defaults for them.
    if (!machine) return null;
    return toPrediction(tuner.predict(workload, strategyId, machine as Machine));
  },
};
