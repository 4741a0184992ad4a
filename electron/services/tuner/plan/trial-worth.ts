// When a configuration is worth a short real trial rather than the plan's word: the bar `tune` applies to
// its candidates, and the one the plan names beside its pick. A module of its own because the plan (which
// names the trial) and the closed loop (tune.ts, which runs it) both use it, and tune.ts imports the plan.
import type { EdgeTrial, StrategyPlan } from '../../../contract';

/** Default noise: trials within this share of each other are not told apart (repeats of the H200 sample spread up to 10%; a short trial ±5%). */
export const TUNE_NOISE = 0.05;

/** An edge configuration less likely than this to fit is not worth a trial, however fast: Llama-3.1-8B's
 *  ZeRO-1/2 without offload (the optimizer step's fp32 gradients on top of 14 B/param) sat at 5%. */
export const EDGE_MIN_FIT_CHANCE = 0.1;

/**
 * The configuration at the edge of memory most worth one trial before settling on the pick — "fastest: one
 * trial to confirm" beside the safe pick, with both predictions, and `tune`'s first trial: the fastest
 * edge configuration of any strategy predicted to beat the pick by more than the noise and likely enough to
 * fit. The pick itself stays one that fits for sure (an unmeasured configuration inside the model's memory
 * error is never recommended), but where the edge is much faster — Llama-3.1-8B on one H200: ZeRO-3 micro 4
 * ran 1.56× micro 2, 3.9 GiB under the GPU's capacity — the plan says so and what settles it.
 */
export function edgeTrialFor(
  plans: StrategyPlan[],
  pick: { strategyId: string; tokensPerSecond: number; stepSeconds?: number } | null,
): EdgeTrial | null {
  if (!pick || !(pick.tokensPerSecond > 0)) return null;
  const worth = plans
    .filter((p) => p.edge && p.edge.fitChance >= EDGE_MIN_FIT_CHANCE)
    .map((p) => ({ p, edge: p.edge!, tokensPerSecond: p.edge!.spec.prediction?.tokensPerSecond ?? 0 }))
    .filter((c) => c.tokensPerSecond > pick.tokensPerSecond * (1 + TUNE_NOISE))
    .sort((a, b) => b.tokensPerSecond - a.tokensPerSecond)[0];
  if (!worth) return null;
  const speedup = worth.tokensPerSecond / pick.tokensPerSecond;
  const stepSeconds = worth.edge.spec.prediction?.stepSeconds ?? 0;
  const figures = (tokens: number, step: number | undefined) =>
    `${Math.round(tokens).toLocaleString('en-US')} tokens/s${step ? `, ${step.toFixed(2)} s/step` : ''}`;
  return {
    strategyId: worth.p.id,
    microBatch: worth.edge.microBatch,
    fitChance: worth.edge.fitChance,
    speedup,
    predicted: { tokensPerSecond: worth.tokensPerSecond, stepSeconds },
    configHash: worth.edge.spec.configHash,
    // the strategy and micro batch are the fields; the words give both figures, why it is no pick and what settles it
    reason:
      `predicted ${speedup.toFixed(2)}× the pick (${figures(worth.tokensPerSecond, stepSeconds)} against the safe pick's ${figures(pick.tokensPerSecond, pick.stepSeconds)}), ` +
      `at the edge of GPU memory (about ${Math.round(worth.edge.fitChance * 100)}% likely to fit): not recommended unmeasured — ` +
      `one short trial confirms it, and \`tune\` runs it first (an out-of-memory trial costs seconds and is kept as a result)`,
  };
}
