// What the orchestrator needs from the tuner: a run spec for (workload, strategy) and, where it
// can, a prediction to store beside the measurement. The tuner service implements it; the
// tuner-planner.ts adapts the tuner service to it; tests may pass their own.
import type { EngineKind, Precision, SpecModel, Workload } from '../../contract';

export interface SpecParts {
  engine: EngineKind;
  dsConfig: Record<string, unknown> | null;
  fsdp: { cpuOffload: boolean; reshardAfterForward: boolean } | null;
  model: SpecModel;
  seqLen: number;
  microBatch: number;
  gradAccum: number;
  precision: Precision;
  activationCheckpointing: boolean;
}

/** Predicted figures; tflopsPerGpu/stepSeconds are also kept as columns for comparisons. */
export interface Prediction {
  tflopsPerGpu?: number | null;
  stepSeconds?: number | null;
  [key: string]: unknown;
}

export interface Planner {
  buildRunSpec(workload: Workload, strategyId: string): SpecParts | Promise<SpecParts>;
  predict?(workload: Workload, strategyId: string, machine: unknown): Prediction | null | Promise<Prediction | null>;
}
