// `tune`: the closed loop. Plan (calibrated from this machine's runs) → run the most promising
// candidate as a short trial through the real runner (runs/start, tag `tune`) → plan again (the trial
// is now history, so the next plan is refitted) → stop when no untried candidate is predicted to beat
// the best measured by more than the noise, or the budget is spent. Prints the winner with its
// measured figure beside the seed defaults' measured figure. Ctrl-C keeps the finished trials.
import fs from 'node:fs';
import path from 'node:path';
import type { PlanResult, ResponseOf, WorkloadOverrides } from '../../contract';
import { bestTrial, nextTrial, seedDefaultSpec, trialSecondsEstimate, tuneCandidates, TUNE_NOISE, type TuneTrial } from '../../services/tuner';
import type { Command, CommandContext } from '../command';

const USAGE = `usage: npm run cli -- tune --model ID --seq N --gpus N [--micro-batch N] [--global-batch B]
  [--budget-minutes T] [--max-trials N] [--strategies a,b] [--steps N] [--warmup N] [--noise 0.05]
  [--no-baseline] [--python PATH] [--data-dir D] [--json]
Runs short trials (warm-up + a few measured steps) of the plan's most promising configurations on this
machine, refits the model from each, and stops when nothing untried is predicted to beat the best
measured by more than the noise, or when the budget is spent. Every trial is stored (tag "tune").`;

function intFlag(flags: CommandContext['flags'], name: string, fallback?: number): number | undefined {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isInteger(n) || n <= 0) throw Object.assign(new Error(`--${name} must be a positive whole number, got ${String(v)}`), { field: name });
  return n;
}

function numFlag(flags: CommandContext['flags'], name: string, fallback: number): number {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isFinite(n) || n <= 0) throw Object.assign(new Error(`--${name} must be a positive number, got ${String(v)}`), { field: name });
  return n;
}

const fmt = (x: number | null | undefined, d = 1) => (typeof x === 'number' && Number.isFinite(x) ? (x !== 0 && Math.abs(x) < 10 ** -d ? x.toPrecision(3) : x.toFixed(d)) : '—');

export const tuneCommands: Record<string, Command> = {
  tune: {
    summary: 'closed loop: plan → short trials of the most promising configurations → refit → stop when nothing untried is predicted to beat the best (--model, --seq, --gpus, --budget-minutes)',
    async run({ backend, flags, json, out }) {
      if (flags.help === true) {
        out(USAGE);
        return 0;
      }
      const say = json ? (line: string) => process.stderr.write(line + '\n') : out;
      if (typeof flags.model !== 'string') throw Object.assign(new Error(`--model is required\n${USAGE}`), { field: 'model' });
      const model = fs.existsSync(flags.model) ? path.resolve(flags.model) : flags.model;
      const workload: WorkloadOverrides = {
        model,
        seqLen: intFlag(flags, 'seq', 2048)!,
        microBatch: intFlag(flags, 'micro-batch', 1)!,
        gpus: intFlag(flags, 'gpus', 1)!,
      };
      const globalBatch = intFlag(flags, 'global-batch');
      if (globalBatch) workload.globalBatch = globalBatch;
      const budgetSeconds = numFlag(flags, 'budget-minutes', 30) * 60;
      const maxTrials = intFlag(flags, 'max-trials', 6)!;
      const steps = intFlag(flags, 'steps', 4)!;
      const warmup = flags.warmup === '0' ? 0 : intFlag(flags, 'warmup', 2)!;
      const noise = numFlag(flags, 'noise', TUNE_NOISE);
      const only = typeof flags.strategies === 'string' ? flags.strategies.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      const baseline = flags['no-baseline'] !== true;
      const started = Date.now();
      const elapsed = () => (Date.now() - started) / 1000;

      let cancelled = false;
      let sweepId: string | null = null;
      const onSigint = () => {
        cancelled = true;
        say('cancelling the running trial; finished trials are kept');
        if (sweepId) void backend.invoke('runs/cancel', { sweepId });
      };
      process.on('SIGINT', onSigint);
      const offProgress = backend.on('runs/progress', (e) => {
        if (!e.warmup) say(`    step ${e.step}/${e.total}  ${fmt(e.stepSeconds, 3)} s  ${fmt(e.tflopsPerGpu)} TFLOPS/GPU  ${fmt(e.tokensPerSecond, 0)} tok/s`);
      });

      const trials: TuneTrial[] = [];
      /** Run one spec as a trial; its status and figures from history. */
      const trial = async (spec: PlanResult['strategies'][number]['spec'], key: string, strategyId: string, isBaseline = false): Promise<TuneTrial> => {
        const t0 = Date.now();
        const done = new Promise<void>((resolve) => {
          const off = backend.on('runs/status', (e) => {
            if (e.sweepDone) {
              off();
              resolve();
            }
          });
        });
        const python = typeof flags.python === 'string' ? path.resolve(flags.python) : undefined;
        const res = await backend.invoke('runs/start', { specs: [spec], steps, warmup, tags: ['tune'], ...(python ? { python } : {}) });
        sweepId = res.sweepId;
        await done;
        sweepId = null;
        const run: ResponseOf<'runs/get'> = await backend.invoke('runs/get', { id: res.runIds[0], logLines: 0 });
        const s = run.summary;
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

      try {
        let startup = 60; // seconds of engine start-up before the first step; replaced by what trials measure
        let stopReason = '';
        let lastPlan: PlanResult | null = null;
        for (;;) {
          const plan = await backend.invoke('plan/compute', { workload });
          lastPlan = plan;
          const candidates = tuneCandidates(plan, only);
          if (candidates.length === 0) {
            const reasons = [...new Set(plan.strategies.map((s) => s.reason))].slice(0, 3).join('; ');
            throw Object.assign(new Error(`nothing fits this machine for ${typeof model === 'string' ? model : 'the model'} at seq ${workload.seqLen} on ${workload.gpus} GPU(s): ${reasons} — lower --seq, add GPUs or pick a smaller model`), { field: 'model' });
          }
          if (trials.length === 0) {
            say(`tune: ${candidates.length} candidate(s) on ${plan.profile.machineLabel}; budget ${Math.round(budgetSeconds / 60)} min, at most ${maxTrials} trial(s) of ${warmup} warm-up + ${steps} steps`);
            for (const n of plan.notes.filter((n) => /^(Host figures|Calibrated|Not calibrated)/.test(n))) say(`  ${n}`);
          }
          if (cancelled) {
            stopReason = 'cancelled';
            break;
          }
          if (trials.filter((t) => !t.baseline).length >= maxTrials) {
            stopReason = `${maxTrials} trial(s) run (--max-trials)`;
            break;
          }
          const decision = nextTrial(candidates, trials, noise);
          if (!decision.next) {
            stopReason = decision.reason;
            break;
          }
          const c = decision.next;
          const estimate = trialSecondsEstimate(c, steps, warmup, startup);
          if (elapsed() + estimate > budgetSeconds) {
            if (trials.length === 0)
              throw Object.assign(new Error(`--budget-minutes ${budgetSeconds / 60} is too small for one trial (about ${Math.ceil(estimate / 60)} min for ${c.strategyId}: engine start-up + ${warmup + steps} steps); raise --budget-minutes or lower --steps`), { field: 'budget-minutes' });
            stopReason = `the budget does not cover another trial (${c.strategyId} needs about ${Math.ceil(estimate)} s, ${Math.max(0, Math.round(budgetSeconds - elapsed()))} s left)`;
            break;
          }
          const predicted = c.spec.prediction;
          say(`trial ${trials.length + 1}: ${c.strategyId} micro ${c.spec.microBatch}×${c.spec.gradAccum} ${JSON.stringify(c.spec.knobs)} — ${decision.reason}${predicted && predicted.tflopsPerGpu ? ` (predicted ${fmt(predicted.tflopsPerGpu)} TFLOPS/GPU)` : ''}`);
          const t = await trial(c.spec, c.key, c.strategyId);
          trials.push(t);
          if (t.status === 'completed') startup = Math.max(5, t.seconds - (warmup + steps) * (t.stepSeconds ?? 0));
          say(
            t.status === 'completed'
              ? `  measured ${fmt(t.tflopsPerGpu)} TFLOPS/GPU, ${fmt(t.tokensPerSecond, 0)} tokens/s, ${fmt(t.stepSeconds, 3)} s/step (${t.runId})`
              : `  ${t.status}${t.errorClass ? ` (${t.errorClass})` : ''}: recorded, the search goes on without it (${t.runId})`,
          );
        }

        const best = bestTrial(trials);
        let seed: TuneTrial | null = null;
        if (best && baseline && !cancelled && lastPlan) {
          const spec = seedDefaultSpec(lastPlan, best.strategyId);
          const estimate = trialSecondsEstimate({ key: spec.configHash, strategyId: best.strategyId, spec, predictedTokensPerSecond: 0, predictedStepSeconds: best.stepSeconds ?? 1 }, steps, warmup, startup);
          if (spec.configHash === best.key) seed = { ...best, baseline: true };
          else if (elapsed() + estimate <= budgetSeconds) {
            say(`baseline: ${best.strategyId} with the seed defaults (micro ${spec.microBatch}, no searched knobs)`);
            seed = await trial(spec, spec.configHash, best.strategyId, true);
            trials.push(seed);
          }
        }
        const result = {
          stopReason,
          trials,
          winner: best,
          seedDefaults: seed,
          gain: best && seed?.tokensPerSecond ? best.tokensPerSecond! / seed.tokensPerSecond - 1 : null,
          elapsedSeconds: elapsed(),
        };
        if (json) out(JSON.stringify(result, null, 2));
        else {
          out(`stopped: ${stopReason}`);
          if (best) {
            out(`winner: ${best.strategyId} — ${fmt(best.tflopsPerGpu)} TFLOPS/GPU, ${fmt(best.tokensPerSecond, 0)} tokens/s measured (${best.runId}) in ${trials.filter((t) => !t.baseline).length} trial(s), ${Math.round(elapsed())} s`);
            if (seed?.tokensPerSecond) out(`seed defaults of ${best.strategyId}: ${fmt(seed.tflopsPerGpu)} TFLOPS/GPU, ${fmt(seed.tokensPerSecond, 0)} tokens/s (${seed.runId}) — tuned is ${(((best.tokensPerSecond ?? 0) / seed.tokensPerSecond - 1) * 100).toFixed(0)}% faster`);
          } else out('no trial completed');
        }
        return best ? 0 : 1;
      } finally {
        process.off('SIGINT', onSigint);
        offProgress();
      }
    },
  },
};
