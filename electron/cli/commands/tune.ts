// `tune`: the closed loop. Plan (calibrated from this machine's runs) → run the most promising
// candidate as a short trial through the real runner (runs/start, tag `tune`) → plan again (the trial
// is now history, so the next plan is refitted) → stop when no untried candidate is predicted to beat
// the best measured by more than the noise, or the budget is spent. Prints the winner with its
// measured figure beside the seed defaults' measured figure. Ctrl-C keeps the finished trials.
import path from 'node:path';
import type { WorkloadOverrides } from '../../contract';
import { runTuneLoop, TuneError } from '../../services/backend/tune-loop';
import { TUNE_NOISE, type TuneTrial } from '../../services/tuner';
import type { Command } from '../command';
import { formatFigureCli, terminalSafe } from '../format';
import { modelFlagPath } from '../user-files';
import { countFlag, positiveFlag, wholeFlag } from '../flag-values';
import { readWorkloadFlags, workloadHelp, workloadSynopsis } from '../workload-flags';
import { onInterrupt, UsageError } from '../../kernel';
import { thisMachineDefaults } from './engine';

const USAGE = `usage: npm run cli -- tune --model ID ${workloadSynopsis('tune')}
  [--budget-minutes T] [--max-trials N] [--strategies a,b] [--steps N] [--warmup N] [--noise 0.05]
  [--no-baseline] [--python PATH] [--slurm TARGET] [--data-dir D] [--json]
--slurm TARGET runs each trial as a job of that Slurm target, one at a time (the refit needs each figure).
Runs short trials (warm-up + a few measured steps) of the plan's most promising configurations on this
machine, refits the model from each, and stops when nothing untried is predicted to beat the best
measured by more than the noise, or when the budget is spent. Every trial is stored (tag "tune").
${workloadHelp('tune')}`;

const fmt = (x: number | null | undefined, d = 1) => formatFigureCli(x, d);

/**
 * The line under the winner that sets it beside the seed defaults of its strategy; null when there is
 * nothing to say. When the winner is the seed defaults' own run (the search found nothing better than
 * the defaults), it says so rather than "tuned is 0% faster".
 */
export function seedDefaultsLine(best: TuneTrial, seed: TuneTrial | null, note: string | undefined): string | null {
  if (seed && seed.runId === best.runId)
    return `seed defaults of ${best.strategyId}: the winner itself (${seed.runId}) — the tuned configuration is the seed defaults, no gain to report`;
  if (seed?.tokensPerSecond)
    return `seed defaults of ${best.strategyId}: ${fmt(seed.tflopsPerGpu)} TFLOPS/GPU, ${fmt(seed.tokensPerSecond, 0)} tokens/s (${seed.runId}) — tuned is ${(((best.tokensPerSecond ?? 0) / seed.tokensPerSecond - 1) * 100).toFixed(0)}% faster`;
  if (seed) return `seed defaults of ${best.strategyId}: ${seed.status}${seed.errorClass ? ` (${seed.errorClass})` : ''} (${seed.runId})`;
  if (note) return `seed defaults of ${best.strategyId}: ${note}`;
  return null;
}

export const tuneCommands: Record<string, Command> = {
  tune: {
    summary:
      'closed loop: plan → short trials of the most promising configurations → refit → stop when nothing untried is predicted to beat the best (--model, --seq, --gpus, --budget-minutes)',
    async run(context) {
      const { backend, flags, json, out } = context;
      if (flags.help === true) {
        out(USAGE);
        return 0;
      }
      const say = json ? (line: string) => process.stderr.write(terminalSafe(line) + '\n') : out;
      if (typeof flags.model !== 'string') throw Object.assign(new UsageError(`--model is required\n${USAGE}`), { field: 'model' });
      const model = modelFlagPath(flags.model);
      // the Plan form's defaults for this machine, as `plan` and `run` take them
      const defaults = await thisMachineDefaults(context);
      // the workload flags (contract workload-options.ts); seq, micro batch and GPUs left out: this machine's defaults
      const workload: WorkloadOverrides = { model, ...readWorkloadFlags(flags, 'tune') };
      workload.seqLen ??= defaults.seqLen;
      workload.microBatch ??= defaults.microBatch;
      workload.gpus ??= defaults.gpus;
      const budgetSeconds = positiveFlag(flags, 'budget-minutes', 30) * 60;
      const maxTrials = countFlag(flags, 'max-trials', 6)!;
      const steps = countFlag(flags, 'steps', 4)!;
      const warmup = wholeFlag(flags, 'warmup', 2)!;
      const noise = positiveFlag(flags, 'noise', TUNE_NOISE);
      const only =
        typeof flags.strategies === 'string'
          ? flags.strategies
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined;
      const baseline = flags['no-baseline'] !== true;
      let cancelled = false;
      const offInterrupt = onInterrupt((press) => {
        cancelled = true;
        if (press === 1) say('cancelling the running trial; finished trials are kept');
      });
      const offProgress = backend.on('runs/progress', (e) => {
        if (!e.warmup)
          say(
            `    step ${e.step}/${e.total}  ${fmt(e.stepSeconds, 3)} s  ${fmt(e.tflopsPerGpu)} TFLOPS/GPU  ${fmt(e.tokensPerSecond, 0)} tok/s`,
          );
      });
      try {
        let result;
        try {
          result = await runTuneLoop(backend, {
            workload,
            budgetSeconds,
            maxTrials,
            steps,
            warmup,
            noise,
            strategies: only,
            baseline,
            python: typeof flags.python === 'string' ? path.resolve(flags.python) : undefined,
            slurm: typeof flags.slurm === 'string' ? flags.slurm : undefined,
            say,
            cancelled: () => cancelled,
          });
        } catch (error) {
          if (error instanceof TuneError) throw Object.assign(new Error(error.message), { field: error.field });
          throw error;
        }
        const { winner: best, seedDefaults: seed, trials } = result;
        if (json) out(JSON.stringify(result, null, 2));
        else {
          out(`stopped: ${result.stopReason}`);
          if (best) {
            out(
              `winner: ${best.strategyId} — ${fmt(best.tflopsPerGpu)} TFLOPS/GPU, ${fmt(best.tokensPerSecond, 0)} tokens/s measured (${best.runId}) in ${trials.filter((t) => !t.baseline).length} trial(s), ${Math.round(result.elapsedSeconds)} s`,
            );
            const line = seedDefaultsLine(best, seed, result.seedDefaultsNote);
            if (line) out(line);
          } else out('no trial completed');
        }
        return best ? 0 : 1;
      } finally {
        offInterrupt();
        offProgress();
      }
    },
  },
};
