// The closed loop's decisions (`tune`), pure: which planned configurations are worth a trial, which
// to run next, and when to stop — no untried candidate is predicted to beat the best measured one by
// more than the noise, or the budget does not cover another trial. The CLI drives the loop: plan
// (calibrated from this machine's runs, the finished trials included) → run the next candidate as a
// short trial through the real runner → plan again.
import { runSeconds, type PlanResult, type RunSpec } from '../../../contract';
import { specForKnobs } from './plan';
import { EDGE_MIN_FIT_CHANCE, TUNE_NOISE } from './trial-worth';

export { EDGE_MIN_FIT_CHANCE, TUNE_NOISE };

export interface TuneCandidate {
  /** The spec's configHash: one candidate per distinct configuration. */
  key: string;
  strategyId: string;
  spec: RunSpec;
  /** 0 where nothing is predicted (no GPU: CPU smoke runs). */
  predictedTokensPerSecond: number;
  predictedStepSeconds: number;
  /** At the edge of memory: the model cannot say whether it fits; a trial can (an OOM is a result). */
  edge?: boolean;
  /** The strategy has no run on this machine kind: its prediction rests on priors alone. */
  unmeasured?: boolean;
  /** 0–1, how likely it fits (1 for a configuration that fits for sure): trials go by predicted speed × this. */
  fitChance?: number;
  /** The edge configuration the plan names beside its pick ("fastest: one trial to confirm"): the first trial. */
  named?: boolean;
}

export interface TuneTrial {
  key: string;
  strategyId: string;
  runId: string;
  status: string;
  tokensPerSecond: number | null;
  tflopsPerGpu: number | null;
  stepSeconds: number | null;
  errorClass?: string | null;
  seconds: number;
  /** The seed defaults' configuration (the baseline), not a search candidate. */
  baseline?: boolean;
}

export interface TuneDecision {
  next: TuneCandidate | null;
  reason: string;
}

/** Every strategy of the plan that fits, as its spec (searched micro batch and knobs), and every
 *  configuration at the edge of memory predicted faster than its strategy's fitting one — most promising first. */
export function tuneCandidates(plan: PlanResult, strategies?: string[]): TuneCandidate[] {
  const out: TuneCandidate[] = [];
  for (const s of plan.strategies) {
    if (strategies && !strategies.includes(s.id)) continue;
    const unmeasured = s.fit ? s.fit.bandSource !== 'measured' : false;
    const add = (spec: RunSpec, edge: boolean, fitChance: number) =>
      out.push({
        key: spec.configHash,
        strategyId: s.id,
        spec,
        predictedTokensPerSecond: spec.prediction?.tokensPerSecond ?? 0,
        predictedStepSeconds: spec.prediction?.stepSeconds ?? 0,
        edge,
        unmeasured,
        fitChance,
        named: edge && spec.configHash === plan.recommended?.edgeTrial?.configHash,
      });
    if (s.fits) add(s.spec, false, 1);
    if (s.edge) add(s.edge.spec, true, s.edge.fitChance);
  }
  // expected speed first (predicted × chance to fit); no GPU: no predictions — the plan's order with its recommendation first
  const expected = (c: TuneCandidate) => c.predictedTokensPerSecond * (c.fitChance ?? 1);
  return out.sort(
    (a, b) =>
      expected(b) - expected(a) ||
      Number(b.strategyId === plan.recommended?.strategyId) - Number(a.strategyId === plan.recommended?.strategyId),
  );
}

export function bestTrial(trials: TuneTrial[]): TuneTrial | null {
  return (
    trials
      .filter((t) => !t.baseline && t.status === 'completed' && t.tokensPerSecond)
      .sort((a, b) => b.tokensPerSecond! - a.tokensPerSecond!)[0] ?? null
  );
}

/** What a candidate must be predicted at to be worth a trial against the best measured: beat it by more
 *  than the noise — or, for a strategy never measured on this machine kind, come within the noise of it
 *  (its prediction rests on priors: measured, not trusted). */
function worthBar(c: TuneCandidate, bestTokensPerSecond: number, noise: number): number {
  return bestTokensPerSecond * (c.unmeasured ? 1 - noise : 1 + noise);
}

/** The next trial, or why the loop stops. An out-of-memory trial is a result: the plan that follows knows
 *  it (memory evidence), so that configuration and the larger micro batches of it leave the candidates. */
export function nextTrial(candidates: TuneCandidate[], trials: TuneTrial[], noise = TUNE_NOISE): TuneDecision {
  const tried = new Set(trials.map((t) => t.key));
  const untried = candidates.filter((c) => !tried.has(c.key));
  const best = bestTrial(trials);
  if (untried.length === 0) return { next: null, reason: 'every candidate configuration has been tried' };
  // The plan's "fastest: one trial to confirm" goes first: it is the configuration worth most if it fits, and an
  // out-of-memory answer costs seconds and rules it out (the safe pick is the next trial then).
  const named = trials.length === 0 ? untried.find((c) => c.named) : undefined;
  if (named)
    return {
      next: named,
      reason: `${named.strategyId} micro ${named.spec.microBatch} is the plan's fastest, at the edge of memory (about ${Math.round((named.fitChance ?? 0) * 100)}% likely to fit): one trial to confirm it, first`,
    };
  if (!best) {
    const top = untried.find((c) => !c.edge) ?? untried[0];
    return {
      next: top,
      reason: trials.length
        ? 'no trial has completed yet: the next most promising candidate'
        : top.edge
          ? 'the most promising candidate, at the edge of memory (nothing fits for sure)'
          : 'the most promising candidate',
    };
  }
  if (untried[0].predictedTokensPerSecond === 0)
    return { next: untried[0], reason: 'no prediction on this machine (CPU path): each candidate is measured in turn' };
  const scale = machineScale(candidates, best);
  const onThisMachine = (c: TuneCandidate) => c.predictedTokensPerSecond * scale;
  const worth = untried.filter((c) => worthATrial(c, best, scale, noise));
  const scaleWords =
    Math.abs(scale - 1) > 0.005 ? ` (its prediction ×${scale.toFixed(2)}, as the best trial measured against its own)` : '';
  if (worth.length === 0) {
    const top = untried[0];
    return {
      next: null,
      reason: `no untried candidate is predicted to beat the best measured (${best.strategyId}, ${best.tokensPerSecond!.toFixed(0)} tokens/s) by more than the noise (${(noise * 100).toFixed(0)}%): the best untried, ${top.strategyId}${top.edge ? ` micro ${top.spec.microBatch} (at the edge)` : ''}, is predicted at ${onThisMachine(top).toFixed(0)}${scaleWords}`,
    };
  }
  const next = worth[0];
  const predicted = `${onThisMachine(next).toFixed(0)} tokens/s${scaleWords}`;
  const gain = `${((onThisMachine(next) / best.tokensPerSecond! - 1) * 100).toFixed(0)}% above the best measured`;
  const why = next.edge
    ? `at the edge of memory (micro ${next.spec.microBatch}) and predicted at ${predicted}, ${gain}: a trial says whether it fits`
    : next.unmeasured && onThisMachine(next) <= best.tokensPerSecond! * (1 + noise)
      ? `never measured on this machine kind and predicted within the noise of the best (${predicted}): measured, not trusted from priors`
      : `predicted at ${predicted}, ${gain}`;
  return { next, reason: `${next.strategyId} is ${why}` };
}

/** The one test of a candidate for the next trial and for what a stop leaves untested: its prediction on this
 *  machine's scale above the bar set by the best measured (none yet: every candidate), and, at the edge of
 *  memory, likely enough to fit. */
function worthATrial(c: TuneCandidate, best: TuneTrial | null, scale: number, noise: number): boolean {
  const fast = !best || c.predictedTokensPerSecond * scale > worthBar(c, best.tokensPerSecond!, noise);
  return fast && (!c.edge || (c.fitChance ?? 1) >= EDGE_MIN_FIT_CHANCE);
}

/**
 * How far this machine runs from the model: the best trial's measured speed over the plan's prediction for
 * that same configuration (1 where the plan no longer has it). Instances of one kind differ — the same
 * ZeRO-3 spec of Llama-3.1-8B ran at 3,894 tokens/s on one H200 and 5,249 on another — and the calibration
 * from the kind's other runs moves only part way, so an untried candidate is judged by its prediction on this
 * machine's scale (its speed relative to the best trial's, as the model predicts them), not against an
 * absolute figure another instance set. Without it, a fast instance stopped `tune` after one trial with micro 3
 * untried, predicted 1.26× the trial (resources/samples/h200-heldout-tune-device).
 */
function machineScale(candidates: TuneCandidate[], best: TuneTrial): number {
  const twin = candidates.find((c) => c.key === best.key);
  const ratio =
    twin && twin.predictedTokensPerSecond > 0 && best.tokensPerSecond ? best.tokensPerSecond / twin.predictedTokensPerSecond : 1;
  // Never below 1: a trial slower than its prediction may be that configuration's own miss, not the
  // machine's, so the others keep their absolute figures — a candidate leaves the list only when neither
  // reading (the model's figure, or the trial's scale) has it beating the best measured.
  return Math.max(1, ratio);
}

/**
 * What a stop by the budget or the trial limit leaves untested: the untried candidates still predicted
 * to beat the best measured by more than the noise (edge ones with a fair chance to fit), in words —
 * so the user knows which configurations a longer tune would have tried.
 */
export function untestedNote(candidates: TuneCandidate[], trials: TuneTrial[], noise = TUNE_NOISE): string | null {
  const tried = new Set(trials.map((t) => t.key));
  const best = bestTrial(trials);
  const scale = best ? machineScale(candidates, best) : 1;
  const left = candidates.filter((c) => !tried.has(c.key) && worthATrial(c, best, scale, noise));
  if (left.length === 0) return null;
  const named = left
    .slice(0, 4)
    .map(
      (c) =>
        `${c.strategyId} micro ${c.spec.microBatch}${c.edge ? ' (at the edge)' : ''}${c.predictedTokensPerSecond > 0 ? ` predicted ${c.predictedTokensPerSecond.toFixed(0)} tokens/s` : ''}`,
    );
  return `left untested: ${named.join('; ')}${left.length > 4 ? `; and ${left.length - 4} more` : ''}`;
}

/** The seed defaults of a strategy for the same workload (the form's micro batch, no searched knobs): what a
 *  trial's gain is measured against. It carries the model's prediction for exactly those knobs (uncalibrated:
 *  the plan keeps its factors), so the runner's pre-flight checks the plan's host figure for them. */
export function seedDefaultSpec(plan: PlanResult, strategyId: string): { spec: RunSpec; doesNotFit: string | null } {
  return specForKnobs(plan, strategyId, {});
}

/** Seconds one trial is expected to take: start-up (engine import, model build, DeepSpeed init) + its steps at the predicted step time. */
export function trialSecondsEstimate(c: TuneCandidate, steps: number, warmup: number, startupSeconds: number): number {
  return runSeconds(startupSeconds, steps, warmup, c.predictedStepSeconds > 0 ? c.predictedStepSeconds : 1);
}
