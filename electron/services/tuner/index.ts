// services/tuner: the planning brain. Pure functions over data (resources/presets): parameter
// counts, memory (DeepSpeed's estimators + activations, buffers, overhead), throughput, ds_config
// generation and validation, recommendation, calibration. Other services import only this index.
export { countParams, type ParamCount } from './params';
export { importHfConfig } from './hf-config';
export { resolveModel } from './models';
export { catalog, strategyById, scenarioById, type Catalog } from './presets';
export { parseWorkload } from './workload';
export { buildRunSpec, specModel, type TunerRunSpec, type RunSpecModel } from './run-spec';
export {
  generateConfig,
  generateDsConfig,
  generateFsdpBlock,
  effectiveGradientClipping,
  worldSize,
  SEED_ZERO_KEYS,
  type FsdpBlock,
} from './ds-config';
export { validateDsConfig, validateFsdpBlock } from './validate-config';
