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
import { catalog } from '../catalogue/presets';
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

/**
 * A config split into the parts the readers look at (the FSDP2 block given beside it, or inside it).
 * The deprecated `cpu_offload` / `cpu_offload_param` flags stand for the offload blocks they name, as
 * DeepSpeed reads them, where the block itself is absent.
 */
export function configParts(config: unknown, fsdp?: unknown): ConfigParts {
  const c = obj(config) ?? {};
  const zero = obj(c.zero_optimization);
  const block = (name: string, deprecated: string) =>
    zero ? (obj(zero[name]) ?? (zero[deprecated] === true ? { device: 'cpu' } : null)) : null;
  return {
    config: c,
    zero,
    offloadOptimizer: block('offload_optimizer', 'cpu_offload'),
    offloadParam: block('offload_param', 'cpu_offload_param'),
    fsdp: obj(fsdp) ?? obj(c.fsdp),
  };
}

/** What a config says about the strategy: the fields a catalogue strategy is told apart by. */
export type StrategyShape = Pick<StrategyPreset, 'engine' | 'stage' | 'offloadOptimizer' | 'offloadParam' | 'superOffload'>;

export type ConfigStrategy =
  | {
      strategy: StrategyPreset;
      mechanism: Mechanism;
      /** What the config says that the strategy models as something near it (null when it is exact). */
      assumed: string | null;
    }
  | { strategy: null; mechanism: null; why: string };

const device = (block: JsonObject | null): string => String(block?.device ?? 'none');
const sameShape = (s: StrategyShape, t: StrategyShape) =>
  s.engine === t.engine &&
  s.stage === t.stage &&
  s.offloadOptimizer === t.offloadOptimizer &&
  s.offloadParam === t.offloadParam &&
  s.superOffload === t.superOffload;

/**
 * The catalogue strategy a config runs as, and so its mechanism: the one decision, for the user's own
 * ds_config and for a stored run's config alike. ZeRO stage and offload devices are read as DeepSpeed
 * reads them (an absent stage is 0); a config whose shape is no catalogue strategy is none, with why —
 * a prediction of a strategy near it would be a prediction of something else. The one shape modelled as
 * its neighbour is stage 1 with the optimizer on the CPU: DeepSpeed steps it with the same optimizer class
 * as stage 2, and the catalogue has only ZeRO-2 offload.
 */
export function strategyOfConfig(parts: ConfigParts, strategies: readonly StrategyPreset[] = catalog().strategies): ConfigStrategy {
  const found = (shape: StrategyShape, assumed: string | null = null): ConfigStrategy | null => {
    const strategy = strategies.find((s) => sameShape(s, shape));
    return strategy ? { strategy, mechanism: mechanismOf(strategy), assumed } : null;
  };
  if (parts.fsdp || parts.config.mixedPrecision !== undefined) {
    const fsdp = strategies.find((s) => s.engine === 'fsdp2');
    return fsdp
      ? { strategy: fsdp, mechanism: mechanismOf(fsdp), assumed: null }
      : { strategy: null, mechanism: null, why: 'FSDP2 is no strategy of the catalogue' };
  }
  const stage = Number(parts.zero?.stage ?? 0);
  if (stage === 0)
    return { strategy: null, mechanism: null, why: 'ZeRO stage 0 (plain data parallelism) is not a strategy of the catalogue' };
  const oo = device(parts.offloadOptimizer);
  const op = device(parts.offloadParam);
  const superOffload = parts.offloadOptimizer?.super_offload === true;
  const shape = { engine: 'deepspeed', offloadOptimizer: oo, offloadParam: op, superOffload } as const;
  const exact = found({ ...shape, stage } as StrategyShape);
  if (exact) return exact;
  if (stage === 1 && oo === 'cpu' && op === 'none' && !superOffload) {
    const near = found(
      { ...shape, stage: 2 } as StrategyShape,
      'stage 1 with CPU optimizer offload is modelled as ZeRO-2 offload (the same DeepSpeed optimizer class; gradients are not partitioned — identical on one GPU)',
    );
    if (near) return near;
  }
  return {
    strategy: null,
    mechanism: null,
    why: `stage ${stage} with the optimizer on "${oo}" and parameters on "${op}"${superOffload ? ', super_offload' : ''} is no strategy of the catalogue (modelled: ZeRO-1/2/3 without offload, the optimizer alone on CPU at stage 1–3, with super_offload at stage 3, optimizer and parameters both on CPU or both on NVMe at stage 3)`,
  };
}

/** A config read back into knobs by the mechanism of its strategy (the ZeRO keys alone when it is none). */
export function knobsOfConfig(config: unknown, fsdp?: unknown) {
  const parts = configParts(config, fsdp);
  return (strategyOfConfig(parts).mechanism?.readKnobs ?? readZeroKnobs)(parts);
}
