// The closed loop's decisions (`tune`), pure: which planned configurations are worth a trial, which
// to run next, and when to stop — no untried candidate is predicted to beat the best measured one by
// more than the noise, or the budget does not cover another trial. The CLI drives the loop: plan
// (calibrated from this machine's runs, the finished trials included) → run the next candidate as a
// short trial through the real runner → plan again.
import type { PlanResult, RunSpec } from '../../contract';
import { specForKnobs } from './plan';

export interface TuneCandidate {
  /** The spec's configHash: one candidate per distinct configuration. */
  key: string;
  strategyId: string;
  spec: RunSpec;
  /** 0 where nothing is predicted (no GPU: CPU smoke runs). */
  predictedTokensPerSecond: number;
  predictedStepSeconds: number;
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

/** Default noise: trials within this share of each other are not told apart (repeats of the H200 sample spread up to 10%; a short trial ±5%). */
export const TUNE_NOISE = 0.05;

/** Every strategy of the plan that fits, as its spec (searched micro batch and knobs), most promising first. */
export function tuneCandidates(plan: PlanResult, strategies?: string[]): TuneCandidate[] {
  const out: TuneCandidate[] = [];
  for (const s of plan.strategies) {
    if (!s.fits || (strategies && !strategies.includes(s.id))) continue;
    const p = s.spec.prediction;
    out.push({ key: s.spec.configHash, strategyId: s.id, spec: s.spec, predictedTokensPerSecond: p?.tokensPerSecond ?? 0, predictedStepSeconds: p?.stepSeconds ?? 0 });
  }
  // no GPU: no predictions — keep the plan's order with its recommendation first
  return out.sort((a, b) => b.predictedTokensPerSecond - a.predictedTokensPerSecond || Number(b.strategyId === plan.recommended?.strategyId) - Number(a.strategyId === plan.recommended?.strategyId));
}

export function bestTrial(trials: TuneTrial[]): TuneTrial | null {
  return trials.filter((t) => !t.baseline && t.status === 'completed' && t.tokensPerSecond).sort((a, b) => b.tokensPerSecond! - a.tokensPerSecond!)[0] ?? null;
}

/** The next trial, or why the loop stops. */
export function nextTrial(candidates: TuneCandidate[], trials: TuneTrial[], noise = TUNE_NOISE): TuneDecision {
  const tried = new Set(trials.map((t) => t.key));
  const failedStrategies = new Set(trials.filter((t) => t.status === 'failed' && /oom/.test(t.errorClass ?? '')).map((t) => t.strategyId));
  const untried = candidates.filter((c) => !tried.has(c.key) && !failedStrategies.has(c.strategyId));
  const best = bestTrial(trials);
  if (untried.length === 0) return { next: null, reason: 'every candidate configuration has been tried' };
  const top = untried[0];
  if (!best) return { next: top, reason: trials.length ? 'no trial has completed yet: the next most promising candidate' : 'the most promising candidate' };
  if (top.predictedTokensPerSecond === 0) return { next: top, reason: 'no prediction on this machine (CPU path): each candidate is measured in turn' };
  const bar = best.tokensPerSecond! * (1 + noise);
  if (top.predictedTokensPerSecond <= bar)
    return {
      next: null,
      reason: `no untried candidate is predicted to beat the best measured (${best.strategyId}, ${best.tokensPerSecond!.toFixed(0)} tokens/s) by more than the noise (${(noise * 100).toFixed(0)}%): the best untried, ${top.strategyId}, is predicted at ${top.predictedTokensPerSecond.toFixed(0)}`,
    };
  return { next: top, reason: `${top.strategyId} is predicted at ${top.predictedTokensPerSecond.toFixed(0)} tokens/s, ${((top.predictedTokensPerSecond / best.tokensPerSecond! - 1) * 100).toFixed(0)}% above the best measured` };
}

/** The seed defaults of a strategy for the same workload (the form's micro batch, no searched knobs): what a
 *  trial's gain is measured against. It carries the model's prediction for exactly those knobs (uncalibrated:
 *  the plan keeps its factors), so the runner's pre-flight checks the plan's host figure for them. */
export function seedDefaultSpec(plan: PlanResult, strategyId: string): { spec: RunSpec; doesNotFit: string | null } {
  return specForKnobs(plan, strategyId, {});
}

/** Seconds one trial is expected to take: start-up (engine import, model build, DeepSpeed init) + its steps at the predicted step time. */
export function trialSecondsEstimate(c: TuneCandidate, steps: number, warmup: number, startupSeconds: number): number {
  return startupSeconds + (steps + warmup) * (c.predictedStepSeconds > 0 ? c.predictedStepSeconds : 1);
}
