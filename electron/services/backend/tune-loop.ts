// The `tune` closed loop over the contract's own channels (plan/compute, runs/start, runs/get,
// runs/cancel), so any transport can drive it — the CLI today, a tune/start channel for the app
// tomorrow: plan (calibrated from this machine's runs) → run the most promising candidate as a short
// trial (tag `tune`) → plan again (the trial is history now, so the plan is refitted) → stop when
// no untried candidate is predicted to beat the best measured by more than the noise, the budget
// does not cover another trial, or the trial limit is reached. The decisions are tuner/tune.ts.
import { formatDuration, formatFigure } from '../../contract/format';
import {
  ENGINE_START_ASSUMED_SECONDS,
  type Channel,
  type EventName,
  type EventOf,
  type PlanResult,
  type RequestOf,
  type ResponseOf,
  type RunSpec,
  type WorkloadOverrides,
} from '../../contract';
import {
  bestTrial,
  nextTrial,
  untestedNote,
  seedDefaultSpec,
  trialSecondsEstimate,
  tuneCandidates,
  TUNE_NOISE,
  type TuneTrial,
} from '../tuner';

export interface TuneBus {
  invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void;
}

export interface TuneOptions {
  workload: WorkloadOverrides;
  budgetSeconds: number;
  maxTrials: number;
  steps: number;
  warmup: number;
  noise?: number;
  strategies?: string[];
  /** Also measure the winner's seed defaults (the form's micro batch, no searched knobs). */
  baseline?: boolean;
  python?: string;
  /** Trials as jobs of this Slurm target, submitted one at a time (the refit needs each one's figure). */
  slurm?: string;
  /** Progress lines for people. */
  say?: (line: string) => void;
  /** Set to stop: the running trial is cancelled, finished trials are kept. */
  cancelled?: () => boolean;
}

export interface TuneResult {
  stopReason: string;
  trials: TuneTrial[];
  winner: TuneTrial | null;
  seedDefaults: TuneTrial | null;
  /** Why the seed defaults were not measured (they do not fit, the budget, no baseline asked for). */
  seedDefaultsNote?: string;
  /** Winner over seed defaults, tokens/s − 1. */
  gain: number | null;
  elapsedSeconds: number;
}

export class TuneError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export async function runTuneLoop(bus: TuneBus, o: TuneOptions): Promise<TuneResult> {
  const say = o.say ?? (() => undefined);
  const noise = o.noise ?? TUNE_NOISE;
  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  const cancelled = () => o.cancelled?.() ?? false;
  const trials: TuneTrial[] = [];

  let sweepId: string | null = null;
  const trial = async (spec: RunSpec, key: string, strategyId: string, isBaseline = false): Promise<TuneTrial> => {
    const t0 = Date.now();
    const done = new Promise<void>((resolve) => {
      const off = bus.on('runs/status', (e) => {
        if (e.sweepDone && (!sweepId || e.sweepId === sweepId)) {
          off();
          resolve();
        }
      });
    });
    const res = await bus.invoke('runs/start', {
      specs: [spec],
      steps: o.steps,
      warmup: o.warmup,
      tags: ['tune'],
      ...(o.python ? { python: o.python } : {}),
      ...(o.slurm ? { slurm: o.slurm } : {}),
    });
    sweepId = res.sweepId;
    const watch = setInterval(() => {
      if (cancelled() && sweepId) void bus.invoke('runs/cancel', { sweepId });
    }, 500);
    try {
      await done;
    } finally {
      clearInterval(watch);
      sweepId = null;
    }
    const s = (await bus.invoke('runs/get', { id: res.runIds[0], logLines: 0 })).summary;
    return {
      key,
      strategyId,
      runId: s.id,
      status: s.status,
      tokensPerSecond: s.tokensPerSecond,
      tflopsPerGpu: s.tflopsPerGpu,
      stepSeconds: s.stepSeconds,
      errorClass: s.errorClass,
      seconds: (Date.now() - t0) / 1000,
      baseline: isBaseline,
    };
  };

  let startup = ENGINE_START_ASSUMED_SECONDS; // engine start-up before the first step, until the machine's runs say (plan.engineStart), then each trial
  let stopReason = '';
  let lastPlan: PlanResult | null = null;
  for (;;) {
    const plan = await bus.invoke('plan/compute', { workload: o.workload });
    lastPlan = plan;
    const candidates = tuneCandidates(plan, o.strategies);
    if (candidates.length === 0) {
      const reasons = [...new Set(plan.strategies.map((s) => s.reason))].slice(0, 3).join('; ');
      throw new TuneError(
        `nothing fits this machine for ${plan.model.id} at seq ${plan.workload.seqLen} on ${plan.workload.gpus} GPU(s): ${reasons} — lower the sequence length, add GPUs or pick a smaller model`,
        'model',
      );
    }
    if (trials.length === 0) {
      if (plan.engineStart) startup = plan.engineStart.seconds; // measured on this machine's runs, until a trial measures it
      say(
        `tune: ${candidates.length} candidate(s) on ${plan.profile.machineLabel}; budget ${formatDuration(o.budgetSeconds)}, at most ${o.maxTrials} trial(s) of ${o.warmup} warm-up + ${o.steps} steps`,
      );
      for (const n of plan.notes.filter((n) => /^(Host figures|Calibrated|Not calibrated)/.test(n))) say(`  ${n}`);
    }
    if (cancelled()) {
      stopReason = 'cancelled';
      break;
    }
    if (trials.filter((t) => !t.baseline).length >= o.maxTrials) {
      stopReason = withUntested(`${o.maxTrials} trial(s) run (the trial limit)`, untestedNote(candidates, trials, noise));
      break;
    }
    const decision = nextTrial(candidates, trials, noise);
    if (!decision.next) {
      stopReason = decision.reason;
      break;
    }
    const c = decision.next;
    const estimate = trialSecondsEstimate(c, o.steps, o.warmup, startup);
    if (elapsed() + estimate > o.budgetSeconds) {
      if (trials.length === 0)
        throw new TuneError(
          `a budget of ${formatDuration(o.budgetSeconds)} is too small for one trial (about ${formatDuration(estimate)} for ${c.strategyId}: engine start-up + ${o.warmup + o.steps} steps); raise the budget or lower the steps`,
          'budget-minutes',
        );
      stopReason = withUntested(
        `the budget does not cover another trial (${c.strategyId} needs about ${formatDuration(estimate)}, ${formatDuration(o.budgetSeconds - elapsed())} left)`,
        untestedNote(candidates, trials, noise),
      );
      break;
    }
    const p = c.spec.prediction;
    say(
      `trial ${trials.length + 1}: ${c.strategyId} micro ${c.spec.microBatch}×${c.spec.gradAccum} ${JSON.stringify(c.spec.knobs)} — ${decision.reason}${p && p.tflopsPerGpu ? ` (predicted ${formatFigure(p.tflopsPerGpu, 1, false)} TFLOPS/GPU)` : ''}`,
    );
    const t = await trial(c.spec, c.key, c.strategyId);
    trials.push(t);
    if (t.status === 'completed') startup = Math.max(5, t.seconds - (o.warmup + o.steps) * (t.stepSeconds ?? 0));
    say(
      t.status === 'completed'
        ? `  measured ${formatFigure(t.tflopsPerGpu, 1, false)} TFLOPS/GPU, ${formatFigure(t.tokensPerSecond, 0, false)} tokens/s, ${formatFigure(t.stepSeconds, 3, false)} s/step (${t.runId})`
        : `  ${t.status}${t.errorClass ? ` (${t.errorClass})` : ''}: recorded, the search goes on without it (${t.runId})`,
    );
  }

  const best = bestTrial(trials);
  let seed: TuneTrial | null = null;
  let seedNote: string | undefined;
  if (best && !(o.baseline ?? true)) seedNote = 'not measured (no baseline asked for)';
  if (best && (o.baseline ?? true) && !cancelled() && lastPlan) {
    const { spec, doesNotFit } = seedDefaultSpec(lastPlan, best.strategyId);
    const estimate = trialSecondsEstimate(
      { key: spec.configHash, strategyId: best.strategyId, spec, predictedTokensPerSecond: 0, predictedStepSeconds: best.stepSeconds ?? 1 },
      o.steps,
      o.warmup,
      startup,
    );
    if (spec.configHash === best.key) seed = { ...best, baseline: true };
    else if (doesNotFit) {
      // Nothing to run: the seed defaults cannot train this workload here (on the H200, Llama-3.1-8B's
      // full optimizer offload was refused by the pre-flight) — the tuned knobs are what make it fit.
      seedNote = `the seed defaults (micro ${spec.microBatch}, no searched knobs) do not fit this machine — ${doesNotFit}: the tuned settings are what make this workload trainable here`;
      say(`baseline: ${best.strategyId} — ${seedNote}`);
    } else if (elapsed() + estimate <= o.budgetSeconds) {
      say(`baseline: ${best.strategyId} with the seed defaults (micro ${spec.microBatch}, no searched knobs)`);
      seed = await trial(spec, spec.configHash, best.strategyId, true);
      trials.push(seed);
    } else seedNote = `not measured: the budget does not cover it (about ${Math.ceil(estimate)} s)`;
  }
  return {
    stopReason,
    trials,
    winner: best,
    seedDefaults: seed,
    ...(seedNote ? { seedDefaultsNote: seedNote } : {}),
    gain: best?.tokensPerSecond && seed?.tokensPerSecond ? best.tokensPerSecond / seed.tokensPerSecond - 1 : null,
    elapsedSeconds: elapsed(),
  };
}

/** A stop reason with what it left untested, when anything is. */
function withUntested(reason: string, untested: string | null): string {
  return untested ? `${reason}; ${untested}` : reason;
}
