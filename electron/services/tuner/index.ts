// services/tuner: the planning brain. Pure functions over data (resources/presets): parameter
// counts, memory (DeepSpeed's estimators + activations, buffers, overhead), throughput, ds_config
// generation and validation, recommendation, calibration. Other services import only this index.
export { countParams, type ParamCount } from './model/params';
export { checkHfConfigFields, hfConfigName, importHfConfig, parseHfConfigText } from './catalogue/hf-config';
export { looksLikePath, resolveModel } from './catalogue/models';
export { catalog, strategyById, scenarioById, type Catalog } from './catalogue/presets';
export { parseWorkload } from './catalogue/workload';
export { buildRunSpec, configHash, planSpec, specModel, specPrediction, type BuildRunSpecOptions } from './config/run-spec';
export {
  generateConfig,
  generateDsConfig,
  generateFsdpBlock,
  resolveKnobs,
  effectiveGradientClipping,
  worldSize,
  SEED_ZERO_KEYS,
  type FsdpBlock,
} from './config/ds-config';
export { validateDsConfig, validateFsdpBlock } from './config/validate-config';
export { estimateZero2, estimateZero3, type EstimatorResult } from './model/estimators';
export { estimateMemory, activationBytes, layerActivationBytesPerToken, modelStatesFor, MEMORY_CONSTANTS } from './model/memory';
export { normalizeMeasurements, type TunerMeasurements } from './catalogue/measurements';
export { buildProfile, cpuAdamRate, matchGpu, PROFILE_DEFAULTS } from './catalogue/profile';
export {
  completeFactors,
  cpuRatio,
  exposedTerms,
  FACTOR_KEYS,
  flopsPerSample,
  pageableRate,
  phaseTimes,
  predictFrom,
  stepSecondsFrom,
  TFLOPS_FORMULA,
  THROUGHPUT_CONSTANTS,
  UNIT_FACTORS,
  type EfficiencyFactors,
  type PhaseTimes,
  type ThroughputInputs,
  type ThroughputKnobs,
} from './model/throughput';
export { checkFit, fitClass, gib, type FitClass, type FitVerdict } from './model/fit';
export {
  bandFor,
  gpuMemoryError,
  measuredFit,
  memoryEvidence,
  modelKey,
  pointFromRun,
  predictedAllocated,
  BAND_FLOOR,
  UNCALIBRATED_BAND,
  UNSEEN_KIND_BAND,
  type MemoryBand,
  type MemoryEvidence,
  type MemoryPoint,
  type StoredRunOutcome,
} from './model/memory-evidence';
export {
  atMicro,
  kernelProbeMicros,
  kernelsForPlan,
  kernelsMismatch,
  kernelsNote,
  probedActivations,
  probedMicroSeconds,
  withKernels,
  type WorkloadKernels,
} from './model/kernels';
export { planWorkload, predict, chooseCpuadamCoresPerc, specForKnobs, type PlanOptions } from './plan/plan';
export {
  calibrationNote,
  calibrationTable,
  fitCalibration,
  fitEfficiency,
  knobsFromConfig,
  phaseTimesOf,
  sampleFromRun,
  storedRunWorkload,
  summarizeCalibrationRows,
  workloadKey,
  type CalibrationRow,
  type CalibrationSample,
  type CalibrationResult,
  type StoredRunFacts,
} from './model/calibrate';
export { computePlan, parseMachine, type ComputePlanInput } from './plan/compute';
export { searchStrategy, coresPercCandidates, type SearchResult } from './plan/search';
export {
  bestTrial,
  nextTrial,
  untestedNote,
  seedDefaultSpec,
  trialSecondsEstimate,
  tuneCandidates,
  TUNE_NOISE,
  type TuneCandidate,
  type TuneDecision,
  type TuneTrial,
} from './plan/tune';

import { catalog as catalogOf } from './catalogue/presets';
import { countParams as count } from './model/params';
/** What plan/presets answers: models (with computed parameter counts), strategies, scenarios, GPUs. */
export function presetsPayload() {
  const c = catalogOf();
  return {
    models: c.models.map((m) => ({ ...m, params: count(m).total })),
    strategies: c.strategies,
    scenarios: c.scenarios,
    gpus: c.gpus,
  };
}
export { planConfiguration } from './plan/plan';
export {
  planUserConfig,
  parseConfigText,
  resolveAutoValues,
  deriveBatch,
  checkKeys,
  mapConfig,
  configDiff,
  tunedConfig,
  deepSpeedKeys,
  type UserConfigInput,
} from './user-config';
export { launchExport } from './config/launch-export';
export { mechanismOf, type Mechanism } from './mechanisms';
