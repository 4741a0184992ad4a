// One module per offload mechanism (types.ts says what each holds); registry.ts picks one.
export { MECHANISMS, mechanismOf, strategyOfConfig, configParts, knobsOfConfig } from './registry';
export type { ConfigStrategy, StrategyShape } from './registry';
export { coresPercCandidates } from './cores';
export { effectiveGradientClipping, worldSize } from './zero-common';
export { zeroStatesWithoutOffload } from './no-offload';
export type { Mechanism, MechanismId, KnobSearchSpace, MemoryContext, TimeContext, TimeTerms } from './types';
