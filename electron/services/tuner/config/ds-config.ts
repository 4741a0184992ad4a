// ds_config.json generation: one config per strategy, from the strategy's data and the workload. The
// strategy's mechanism (mechanisms/) writes its offload blocks; the seed scenario's keys
// (config-defaults.ts) are applied to every DeepSpeed strategy so strategies compare on the same buckets.
import type { Knobs, StrategyPreset, Workload } from '../../../contract';
import { mechanismOf } from '../mechanisms';

export {
  SEED_ZERO_KEYS,
  SUPER_OFFLOAD_RATIO,
  DEFAULT_CPUADAM_CORES_PERC,
  DEFAULT_NVME_PATH,
  DEFAULT_GRADIENT_CLIPPING,
} from './config-defaults';
export { effectiveGradientClipping, worldSize } from '../mechanisms';

export interface FsdpBlock {
  cpuOffload: boolean;
  reshardAfterForward: boolean;
}

/** The knobs a config is generated from, with the generator's defaults filled in for this strategy
 *  (SuperOffload: cpuadam_cores_perc — the workload's when the knobs have none — and ratio;
 *  FSDP2: reshardAfterForward). */
export function resolveKnobs(s: StrategyPreset, w: Workload, knobs: Knobs = {}): Knobs {
  return mechanismOf(s).resolveKnobs(s, w, { ...knobs });
}

/** The strategy's DeepSpeed config (its mechanism writes the offload blocks). */
export function generateDsConfig(s: StrategyPreset, w: Workload, knobs: Knobs = {}): Record<string, unknown> {
  if (s.engine !== 'deepspeed') throw new Error(`${s.id} is no DeepSpeed strategy: it has no ds_config`);
  return mechanismOf(s).emitConfig(s, w, resolveKnobs(s, w, knobs));
}

export function generateFsdpBlock(knobs: Knobs = {}): FsdpBlock {
  return { cpuOffload: true, reshardAfterForward: knobs.reshardAfterForward ?? true };
}

/** The strategy's config: ds_config for DeepSpeed, the runner's fsdp block for FSDP2. */
export function generateConfig(s: StrategyPreset, w: Workload, knobs: Knobs = {}): Record<string, unknown> {
  return mechanismOf(s).emitConfig(s, w, resolveKnobs(s, w, knobs));
}
