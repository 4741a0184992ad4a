// What the engine (services/engine) hands the Python runner for one strategy × workload: the
// model architecture in the runner's camelCase keys, the batch shape, and the generated config.
import type { ModelArch, WorkloadInput, Workload } from '../../contract';
import { generateDsConfig, generateFsdpBlock, type FsdpBlock } from './ds-config';
import { resolveModel } from './models';
import { strategyById } from './presets';
import { parseWorkload } from './workload';

export interface RunSpecModel {
  id: string;
  family: string;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  intermediateSize: number;
  vocabSize: number;
  tieEmbeddings: boolean;
  /** 0 for gpt2 (learned positions). */
  ropeTheta: number;
  rmsNormEps: number;
  headDim: number;
}

export interface TunerRunSpec {
  engine: 'deepspeed' | 'fsdp2';
  dsConfig: Record<string, unknown> | null;
  fsdp: FsdpBlock | null;
  model: RunSpecModel;
  seqLen: number;
  microBatch: number;
  gradAccum: number;
  precision: 'bf16' | 'fp16';
  activationCheckpointing: boolean;
}

export function specModel(m: ModelArch): RunSpecModel {
  return {
    id: m.id,
    family: m.family,
    hiddenSize: m.hiddenSize,
    numLayers: m.numLayers,
    numHeads: m.numHeads,
    numKvHeads: m.numKvHeads,
    intermediateSize: m.intermediateSize,
    vocabSize: m.vocabSize,
    tieEmbeddings: m.tieEmbeddings,
    ropeTheta: m.ropeTheta,
    rmsNormEps: m.rmsNormEps,
    headDim: m.headDim,
  };
}

/**
 * The runner's spec for a workload and a strategy id. `cpuadamCoresPerc` (SuperOffload) defaults to
 * the workload's override, else 0.90 — pass the plan's recommended value to run what was planned.
 */
export function buildRunSpec(workloadInput: WorkloadInput | Workload, strategyId: string, cpuadamCoresPerc?: number): TunerRunSpec {
  const workload = parseWorkload(workloadInput);
  const strategy = strategyById(strategyId);
  const model = resolveModel(workload.model);
  const deepspeed = strategy.engine === 'deepspeed';
  return {
    engine: strategy.engine,
    dsConfig: deepspeed ? generateDsConfig(strategy, workload, cpuadamCoresPerc ?? workload.cpuadamCoresPerc) : null,
    fsdp: deepspeed ? null : generateFsdpBlock(),
    model: specModel(model),
    seqLen: workload.seqLen,
    microBatch: workload.microBatch,
    gradAccum: workload.gradAccum,
    precision: workload.precision,
    activationCheckpointing: workload.activationCheckpointing,
  };
}
