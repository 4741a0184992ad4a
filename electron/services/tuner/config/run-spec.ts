// The RunSpec (contract/run-spec.ts) of one strategy × workload × knobs: the resolved model, the
// batch shape, the config generated from the knobs, the prediction the plan showed, and the config
// hash. The plan (plan.ts) calls buildRunSpec with the knobs its search chose; runs/start runs the
// result unchanged (adding only runId/steps/warm-up/seed/time limit).
import { createHash } from 'node:crypto';
import {
  HASHED_OPTION_KEYS,
  RUN_SPEC_VERSION,
  SPEC_OPTION_KEYS,
  specOptionValues,
  SPEC_EXECUTION_DEFAULTS,
  type Knobs,
  type MemoryEstimate,
  type ModelArch,
  type Prediction,
  type RunSpec,
  type SpecModel,
  type SpecPrediction,
  type StrategyPreset,
  type Workload,
  type WorkloadInput,
} from '../../../contract';
import { generateDsConfig, generateFsdpBlock, resolveKnobs } from './ds-config';
import { estimateMemory } from '../model/memory';
import { resolveModel } from '../catalogue/models';
import type { ParamCount } from '../model/params';
import { strategyById } from '../catalogue/presets';
import { parseWorkload } from '../catalogue/workload';

/** The whole resolved architecture: what the runner builds is what the tuner counted. */
export function specModel(m: ModelArch): SpecModel {
  // An import's probe table (`probed`) travels too: whatever sizes the spec later (runs/start's
  // pre-flight, backend/size-here.ts) counts the model as the plan did, not by the formula.
  return { ...m };
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

/** What determines a run's speed, hashed: engine, the exact config, the model's architecture (not
 *  its name), the batch shape — the workload options declared `hashed` (contract workload-options.ts).
 *  Two runs with one hash measured the same thing. */
export function configHash(spec: Pick<RunSpec, 'engine' | 'dsConfig' | 'fsdp' | 'model' | (typeof HASHED_OPTION_KEYS)[number]>): string {
  // hfConfigText is hfConfig's file text: its spacing and key order do not change the model.
  const { id: _id, label: _label, source: _source, publishedParams: _published, hfConfigText: _text, ...arch } = spec.model;
  // canonical() sorts the keys: the basis is the same whatever order the table lists them in
  const basis = {
    engine: spec.engine,
    dsConfig: spec.dsConfig,
    fsdp: spec.fsdp,
    model: arch,
    ...Object.fromEntries(HASHED_OPTION_KEYS.map((k) => [k, spec[k]])),
  };
  return `sha256:${createHash('sha256').update(canonical(basis)).digest('hex').slice(0, 16)}`;
}

export interface BuildRunSpecOptions {
  /** The settings the config is generated from (the search's values); defaults per strategy. */
  knobs?: Knobs;
  /** What the plan showed for exactly this spec; null when nothing was predicted. */
  prediction?: SpecPrediction | null;
}

/**
 * The spec of one run: the workload (its micro batch is the one that runs — pass the search's),
 * the strategy, the config generated from the knobs, the prediction shown. A number as the third
 * argument is SuperOffload's cpuadam_cores_perc (the older form).
 */
export function buildRunSpec(
  workloadInput: WorkloadInput | Workload,
  strategyId: string,
  options: BuildRunSpecOptions | number = {},
): RunSpec {
  const opts: BuildRunSpecOptions = typeof options === 'number' ? { knobs: { cpuadamCoresPerc: options } } : options;
  const workload = parseWorkload(workloadInput);
  const strategy = strategyById(strategyId);
  const model = resolveModel(workload.model);
  const deepspeed = strategy.engine === 'deepspeed';
  const knobs = resolveKnobs(strategy, workload, opts.knobs ?? {});
  const parts = {
    engine: strategy.engine,
    dsConfig: deepspeed ? generateDsConfig(strategy, workload, knobs) : null,
    fsdp: deepspeed ? null : generateFsdpBlock(knobs),
    model: specModel(model),
    // every option the spec carries (contract workload-options.ts), in the table's order
    ...(specOptionValues(workload) as Pick<RunSpec, (typeof SPEC_OPTION_KEYS)[number]>),
  };
  // Built, not parsed: the schema's defaults are set here and JSON drops undefined keys, so this is
  // what RunSpecSchema.parse would return — tests/unit/tuner/run-spec.test.ts checks that for every
  // strategy × preset. (Parsing every spec of every plan cost the planner a third of its time.)
  return JSON.parse(
    JSON.stringify({
      specVersion: RUN_SPEC_VERSION,
      strategy: strategy.id,
      ...parts,
      knobs,
      prediction: opts.prediction ?? null,
      configHash: configHash(parts),
      ...SPEC_EXECUTION_DEFAULTS,
      // a seed the workload gives wins over the execution default (it stays in its place above)
      ...specOptionValues(workload),
      runId: strategy.id,
    }),
  ) as RunSpec;
}

/** What a prediction says of where it comes from: whether host measurements were used, and the machine
 *  it was made for (runs/start refuses a spec planned for a loaded or catalogued machine). */
export type PredictionMadeFor = Pick<SpecPrediction, 'measured' | 'machineId' | 'machineSource' | 'machineLabel'>;

/** The prediction a spec carries: the plan's figures for exactly its micro batch and knobs, for the machine planned for. */
export function specPrediction(
  predicted: Prediction,
  memory: Pick<MemoryEstimate, 'gpuBytes' | 'hostBytes' | 'gpuAllocatedBytes'>,
  params: number,
  made: PredictionMadeFor,
): SpecPrediction {
  return {
    stepSeconds: predicted.stepSeconds,
    tflopsPerGpu: predicted.tflopsPerGpu,
    tflopsAggregate: predicted.tflopsAggregate,
    tokensPerSecond: predicted.tokensPerSecond,
    // the peak allocated: what the runner measures (torch max_memory_allocated), so the two stand side by side
    gpuPeakBytes: memory.gpuAllocatedBytes ?? memory.gpuBytes,
    hostPeakBytes: memory.hostBytes,
    calibrated: predicted.calibrated,
    measured: made.measured,
    params,
    machineId: made.machineId,
    machineSource: made.machineSource,
    machineLabel: made.machineLabel,
  };
}

/** A strategy's spec in a plan: the search's best micro batch and knobs where it found one, the
 *  form's otherwise (a strategy that does not fit still gets the spec it would run with). */
export function planSpec(
  s: StrategyPreset,
  model: ModelArch,
  params: ParamCount,
  workload: Workload,
  best: { microBatch: number; gradAccum?: number; predicted: Prediction; knobs?: Knobs } | null,
  fallback: { predicted: Prediction; memory: MemoryEstimate },
  knobs: Knobs,
  made: PredictionMadeFor,
): RunSpec {
  const w = best ? { ...workload, microBatch: best.microBatch, gradAccum: best.gradAccum ?? workload.gradAccum } : workload;
  const memory = best ? estimateMemory(s, model, params, w, true, { ...knobs, ...best.knobs }) : fallback.memory;
  const prediction = specPrediction(best?.predicted ?? fallback.predicted, memory, params.total, made);
  return buildRunSpec({ ...w, model }, s.id, { knobs: { ...knobs, ...best?.knobs }, prediction });
}
