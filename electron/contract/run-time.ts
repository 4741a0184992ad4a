// How long a run takes, as every estimate counts it (the Run step's sweep, the Tune panel, tune's budget):
// the engine's start-up, then warm-up and measured steps at one step time.

/** Engine start-up per run (interpreter, engine import, model build, DeepSpeed's init) where no run on the
 *  machine has measured it: near the median over the bundled GPU sample runs (`npx tsx bench/engine-startup.ts`:
 *  94 completed runs, median 43.7 s, middle half 25–60 s). */
export const ENGINE_START_ASSUMED_SECONDS = 45;

/** Seconds of one run: start-up + (warm-up + measured steps) × step time. */
export function runSeconds(startupSeconds: number, steps: number, warmup: number, stepSeconds: number): number {
  return startupSeconds + (steps + warmup) * stepSeconds;
}
