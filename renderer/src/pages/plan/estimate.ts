// The engine start-up a time estimate counts per run (the Run step's sweep, the Tune panel's outline):
// measured on this machine when it has runs (plan/compute's engineStart), else assumed — and said which.
import type { PlanResult } from '../../../../electron/contract';

/** Engine start-up per run (interpreter, engine import, model build, init) when no run here has measured it. */
export const ENGINE_START_ASSUMED_SECONDS = 45;

/** The start-up a time estimate counts per run, and where that figure comes from, in words. */
export function engineStartFigure(start: PlanResult['engineStart']): { seconds: number; words: string } {
  return start
    ? { seconds: start.seconds, words: `start-up ${Math.round(start.seconds)} s per run, measured over ${start.runs} run(s)${start.sameModel ? ' of this model' : ''} here` }
    : { seconds: ENGINE_START_ASSUMED_SECONDS, words: `start-up ~${ENGINE_START_ASSUMED_SECONDS} s per run assumed: no run measured here yet` };
}
