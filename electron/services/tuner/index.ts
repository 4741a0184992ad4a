// services/tuner: the planning brain. Pure functions over data (resources/presets): parameter
// counts, memory (DeepSpeed's estimators + activations, buffers, overhead), throughput, ds_config
// generation and validation, recommendation, calibration. Other services import only this index.
export { countParams, type ParamCount } from './model/params';
export { checkHfConfigFields, hfConfigName, importHfConfig, parseHfConfigText } from './catalogue/hf-config';
export { looksLikePath, resolveModel } from './catalogue/models';
export { catalog, strategyById, scenarioById } from './catalogue/presets';
export { parseWorkload } from './catalogue/workload';
export { buildRunSpec, configHash } from './config/run-spec';
export { generateConfig, worldSize } from './config/ds-config';
export { validateDsConfig, validateFsdpBlock } from './config/validate-config';
export { estimateZero2, estimateZero3 } from './model/estimators';
export { estimateMemory, activationBytes, modelStatesFor } from './model/memory';
export { normalizeMeasurements } from './catalogue/measurements';
export { buildProfile, cpuAdamRate } from './catalogue/profile';
export { phaseTimes, predictFrom, stepSecondsFrom, THROUGHPUT_CONSTANTS, type EfficiencyFactors } from './model/throughput';
export { checkFit, gib, type FitVerdict } from './model/fit';
export {
  bandFor,
  gpuMemoryError,
  measuredFit,
  memoryEvidence,
  modelKey,
  pointFromRun,
  UNSEEN_KIND_BAND,
  type MemoryEvidence,
  type MemoryPoint,
} from './model/memory-evidence';
export {
  atMicro,
  kernelProbeMicros,
  kernelsForPlan,
  kernelsMismatch,
  probedActivations,
  probedMicroSeconds,
  withKernels,
} from './model/kernels';
export { planWorkload, predict, specForKnobs } from './plan/plan';
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
  type CalibrationSample,
  type CalibrationResult,
} from './model/calibrate';
export { computePlan, parseMachine } from './plan/compute';
export {
  bestTrial,
  nextTrial,
  untestedNote,
  seedDefaultSpec,
  trialSecondsEstimate,
  tuneCandidates,
  TUNE_NOISE,
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
export { planUserConfig, mapConfig, configDiff, tunedConfig } from './user-config';
export { configParts, mechanismOf, strategyOfConfig } from './mechanisms';
