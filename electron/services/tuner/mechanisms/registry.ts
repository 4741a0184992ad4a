// The mechanisms, and which one a strategy or a config runs through. Every catalogue strategy is
// covered by exactly one (tests/unit/tuner/mechanisms.test.ts checks it).
import type { StrategyPreset } from '../../../contract';
import { fsdp2Offload } from './fsdp2';
import { noOffload } from './no-offload';
import { nvmeOffload } from './nvme';
import { optimizerOffload } from './optimizer-offload';
import { paramOffload } from './param-offload';
import { superOffload } from './superoffload';
import type { ConfigParts, JsonObject, Mechanism } from './types';
import { readZeroKnobs } from './zero-common';

/** Order matters only for readability: `covers` never overlaps (tested). */
export const MECHANISMS: readonly Mechanism[] = [noOffload, optimizerOffload, paramOffload, superOffload, nvmeOffload, fsdp2Offload];

export function mechanismOf(s: StrategyPreset): Mechanism {
  const found = MECHANISMS.find((m) => m.covers(s));
  if (!found)
    throw new Error(
      `no mechanism covers strategy '${s.id}' (engine ${s.engine}, stage ${s.stage}, optimizer ${s.offloadOptimizer}, params ${s.offloadParam})`,
    );
  return found;
}

const obj = (v: unknown): JsonObject | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null);

/** A config split into the parts the readers look at (the FSDP2 block given beside it, or inside it). */
export function configParts(config: unknown, fsdp?: unknown): ConfigParts {
  const c = obj(config) ?? {};
  const zero = obj(c.zero_optimization);
  return {
    config: c,
    zero,
    offloadOptimizer: zero ? obj(zero.offload_optimizer) : null,
    offloadParam: zero ? obj(zero.offload_param) : null,
    fsdp: obj(fsdp) ?? obj(c.fsdp),
  };
}

/** The mechanism a config describes, as the runner would run it; null for no ZeRO config at all. */
export function mechanismOfConfig(parts: ConfigParts): Mechanism | null {
  if (parts.fsdp || parts.config.mixedPrecision !== undefined) return fsdp2Offload;
  if (!parts.zero) return null;
  const oo = String(parts.offloadOptimizer?.device ?? 'none');
  const op = String(parts.offloadParam?.device ?? 'none');
  if (oo === 'nvme' || op === 'nvme') return nvmeOffload;
  if (oo === 'cpu' && parts.offloadOptimizer?.super_offload === true) return superOffload;
  if (oo === 'cpu' && op === 'cpu') return paramOffload;
  if (oo === 'cpu') return optimizerOffload;
  return noOffload;
}

/** A config read back into knobs by the mechanism it describes (the ZeRO keys alone when it describes none). */
export function knobsOfConfig(config: unknown, fsdp?: unknown) {
  const parts = configParts(config, fsdp);
  return (mechanismOfConfig(parts)?.readKnobs ?? readZeroKnobs)(parts);
}
