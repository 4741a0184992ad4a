// The tuner service as the orchestrator's Planner: the same spec generation and the same
// predictions the Plan view shows, so a run executes exactly what was planned.
import * as tuner from '../tuner';
import type { Workload } from '../../contract';
import type { Planner, Prediction, SpecParts } from './planner';

type PredictFn = (workload: Workload, strategyId: string, machine: unknown) => unknown;

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
  async predict(workload, strategyId, machine) {
    // `predict` arrives with the tuner's throughput model; until it is exported, runs store none.
    const predict = (tuner as unknown as { predict?: PredictFn }).predict;
    if (typeof predict !== 'function' || !machine) return null;
    return toPrediction(await predict(workload, strategyId, machine));
  },
};
