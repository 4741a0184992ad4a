// The engine start-up a time estimate counts per run (the Run step's sweep, the Tune panel's outline):
// measured on this machine when it has runs (plan/compute's engineStart), else assumed — and said which.
import { ENGINE_START_ASSUMED_SECONDS, runSeconds, type PlanResult } from '../../../../electron/contract';

/** The start-up a time estimate counts per run, and where that figure comes from, in words. */
export function engineStartFigure(start: PlanResult['engineStart']): { seconds: number; words: string } {
  return start
    ? {
        seconds: start.seconds,
        words: `start-up ${Math.round(start.seconds)} s per run, measured over ${start.runs} run(s)${start.sameModel ? ' of this model' : ''} here`,
      }
    : {
        seconds: ENGINE_START_ASSUMED_SECONDS,
        words: `start-up ~${ENGINE_START_ASSUMED_SECONDS} s per run assumed: no run measured here yet`,
      };
}

/**
 * "about 12 min" for a sweep: per run the engine's start-up (measured here, else assumed) and its
 * steps at the step time measured here for that exact configuration (plan/compute's measuredSteps),
 * else the predicted one. Before, measured step times were never counted: nine identical CPU runs
 * later it still said "about 2 min" (start-ups only) for a sweep that took five. Runs with neither
 * (a CPU path not yet run here) count the start-up only, and the words say so.
 */
export function sweepEstimate(
  specs: { configHash?: string; prediction: { stepSeconds: number } | null }[],
  steps: number,
  warmup: number,
  repeats: number,
  start?: PlanResult['engineStart'],
  measured: PlanResult['measuredSteps'] = {},
): string {
  const measuredStep = (s: (typeof specs)[number]) => (s.configHash ? measured[s.configHash] : undefined);
  const stepSeconds = (s: (typeof specs)[number]) =>
    measuredStep(s)?.seconds ?? (s.prediction && s.prediction.stepSeconds > 0 ? s.prediction.stepSeconds : 0);
  const unpredicted = specs.some((s) => stepSeconds(s) === 0);
  const fromRuns = specs.filter((s) => measuredStep(s));
  const startup = engineStartFigure(start);
  const seconds = repeats * specs.reduce((sum, s) => sum + runSeconds(startup.seconds, steps, warmup, stepSeconds(s)), 0);
  const time =
    seconds < 90
      ? `about ${Math.max(1, Math.round(seconds / 60))} min`
      : seconds < 5400
        ? `about ${Math.round(seconds / 60)} min`
        : `about ${(seconds / 3600).toFixed(1)} h`;
  const stepWords = fromRuns.length
    ? `step times of ${fromRuns.length === specs.length ? 'every strategy' : `${fromRuns.length} of ${specs.length} strategies`} measured here over ${[...new Map(fromRuns.map((s) => [s.configHash, measuredStep(s)!.runs])).values()].reduce((a, b) => a + b, 0)} run(s); `
    : '';
  return `${time} (${unpredicted ? 'mostly starting the engine; CPU steps are not predicted here; ' : ''}${stepWords}${startup.words})`;
}
