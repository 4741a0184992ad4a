// The recommendation: each strategy's best configuration, the fastest that fits for sure, the
// runner-up and why it lost (per token: two picks may run different micro batches).
import type { Knobs, Prediction, Recommendation, StrategyPreset } from '../../../contract';
import { strategyLabel } from '../../../contract/charts/labels';
import { formatFigure } from '../../../contract/format';
import { globalBatch } from '../../../contract/ran-workload';
import { strategyById } from '../catalogue/presets';
import { mechanismOf } from '../mechanisms/registry';
import { fitsQuick } from '../model/fit';
import { estimateMemory } from '../model/memory';
import { predictFrom } from '../model/throughput';
import { factorsFor, type PlanContext } from './context';
import { searchStrategy } from './search';

const TERM_WHY: Record<string, string> = {
  compute: 'more compute per step',
  commExposed: 'GPU↔GPU collectives not hidden behind compute',
  transferExposed: 'host↔GPU transfers not hidden behind compute',
  cpuAdamExposed: 'its CPU Adam step is not hidden behind backward',
  fetchExposed: 'per-layer parameter gathering and sub-group stepping (ZeRO-3 hooks)',
  pageableExposed: 'the blocking fp32→bf16 parameter copy goes over pageable memory',
  hostCopyExposed: 'host-side copies and casts on the cores left to the trainer',
  nvmeExposed: 'NVMe swapping of optimizer states / parameters',
};

/** The term that costs the loser most, per token: two picks may run different micro batches (micro 16
 *  against micro 8 made "more compute per step (+4.83 s/step)" of what was twice the tokens), so the
 *  terms are compared per 1,000 tokens, which both steps are measured in. */
function whyLost(winner: Prediction, loser: Prediction): string {
  const perKiloToken = (p: Prediction, key: string) => {
    const tokensPerStep = p.tokensPerSecond * p.stepSeconds;
    return tokensPerStep > 0 ? ((p.terms[key] ?? 0) / tokensPerStep) * 1000 : 0;
  };
  let worst = 'compute';
  let delta = -Infinity;
  for (const key of Object.keys(TERM_WHY)) {
    const d = perKiloToken(loser, key) - perKiloToken(winner, key);
    if (d > delta) [worst, delta] = [key, d];
  }
  return `${TERM_WHY[worst]} (+${formatFigure(delta, 3)} s per 1,000 tokens)`;
}

function tps(p: Prediction): number {
  return p.tokensPerSecond;
}

export interface Candidate {
  id: string;
  label: string;
  microBatch: number;
  predicted: Prediction;
  /** Knobs the search chose beyond the micro batch (they go into the strategy's RunSpec). */
  knobs?: Knobs;
  /** Each chosen knob and why. */
  why?: string[];
  /** The accumulation the search chose (keeping a global batch), else the workload's. */
  gradAccum?: number;
  /** The search's fastest configuration at the edge of memory, where faster than this one. */
  edge?: { microBatch: number; gradAccum: number; knobs: Knobs; predicted: Prediction; fitChance: number } | null;
  /** Nothing of this strategy fits for sure: only its edge is worth a trial, it is no pick. */
  edgeOnly?: boolean;
}

/** Memory + fit + prediction only (no config, no validation): the micro-batch search runs this many times. */
function quick(ctx: PlanContext, s: StrategyPreset): Candidate | null {
  const { model, params, workload: w, machine, hw, perc } = ctx;
  if (!fitsQuick(s, estimateMemory(s, model, params, w, false), w, machine, hw)) return null;
  // The one display name (contract/charts/labels) in every sentence the recommendation says.
  return {
    id: s.id,
    label: strategyLabel(s.id),
    microBatch: w.microBatch,
    predicted: predictFrom({ strategy: s, model, params, workload: w, profile: hw, cpuadamCoresPerc: perc }, factorsFor(ctx, s.id)),
  };
}

/**
 * The pick among the strategies (the fastest predicted that fits for sure) and the runner-up; `bestOf`
 * receives each strategy's best configuration, edge-only ones included, for the plan's rows.
 */
export function recommend(ctx: PlanContext, all: StrategyPreset[], bestOf?: Map<string, Candidate>): Recommendation | null {
  const { workload: w, hw, perc } = ctx;
  const bests: Candidate[] = [];
  for (const s of all) {
    let best: Candidate | null = null;
    if (hw.gpuCount === 0) best = quick(ctx, s);
    else {
      // micro batch and offload knobs together (search.ts); the user's cpuadam_cores_perc stays as given
      const found = searchStrategy(ctx, s, w);
      if (found)
        best = {
          id: s.id,
          label: strategyLabel(s.id),
          microBatch: found.microBatch,
          gradAccum: found.gradAccum,
          predicted: found.predicted,
          knobs: found.knobs as Knobs,
          why: found.why,
          edge: found.edge ? { ...found.edge, knobs: found.edge.knobs as Knobs } : null,
          edgeOnly: found.fitsNone ?? false,
        };
    }
    // a pick fits for sure (nothing within its memory error of a limit unless measured there)
    if (best && !best.edgeOnly) bests.push(best);
    if (best) bestOf?.set(s.id, best);
  }
  if (bests.length === 0) return null;
  if (hw.gpuCount === 0) {
    // No GPU: only CPU smoke runs fit, and the model predicts nothing for them; the mechanism names the
    // configuration the engine's own CI path exercises.
    const smokeFirst = (b: Candidate) => {
      const s = all.find((x) => x.id === b.id);
      return s !== undefined && mechanismOf(s).cpuSmokeFirst?.(s) === true;
    };
    const pick = bests.find(smokeFirst) ?? bests[0];
    const other = bests.find((b) => b !== pick);
    return {
      strategyId: pick.id,
      microBatch: w.microBatch,
      gradAccum: w.gradAccum,
      cpuadamCoresPerc: null,
      knobs: {},
      knobReasons: [],
      predicted: pick.predicted,
      reason: `${pick.label}: a CPU smoke run — no GPU here, so this checks the engine end to end rather than predicting speed`,
      runnerUp: other
        ? {
            strategyId: other.id,
            microBatch: w.microBatch,
            predicted: other.predicted,
            reason: `${other.label} also runs on the CPU; neither has a GPU prediction`,
          }
        : null,
    };
  }
  bests.sort((a, b) => tps(b.predicted) - tps(a.predicted));
  const [win, second] = bests;
  const p = win.predicted;
  const speedup = second ? ` — ${(tps(p) / tps(second.predicted)).toFixed(2)}× ${second.label}` : ' — the only strategy that fits';
  const accum = win.gradAccum ?? w.gradAccum;
  const batchNote =
    win.microBatch !== w.microBatch || accum !== w.gradAccum
      ? `, micro batch ${win.microBatch} × accumulation ${accum} (searched; global batch ${globalBatch({ ...w, microBatch: win.microBatch, gradAccum: accum })})`
      : `, micro batch ${win.microBatch}`;
  const strategy = strategyById(win.id);
  return {
    strategyId: win.id,
    microBatch: win.microBatch,
    gradAccum: accum,
    cpuadamCoresPerc: mechanismOf(strategy).hasCoresKnob ? (win.knobs?.cpuadamCoresPerc ?? perc) : null,
    knobs: win.knobs ?? {},
    knobReasons: win.why ?? [],
    predicted: p,
    reason: `${win.label}: fastest predicted that fits — ${p.tflopsPerGpu.toFixed(0)} TFLOPS/GPU, ${p.stepSeconds.toFixed(2)} s/step${batchNote}${speedup}`,
    runnerUp: second
      ? {
          strategyId: second.id,
          microBatch: second.microBatch,
          predicted: second.predicted,
          reason:
            tps(second.predicted) >= tps(p) * 0.995
              ? `${second.label} is predicted as fast (within 0.5%): the model does not tell them apart here — measure both`
              : `${second.label} is ${((1 - tps(second.predicted) / tps(p)) * 100).toFixed(0)}% slower: ${whyLost(p, second.predicted)}`,
        }
      : null,
  };
}
