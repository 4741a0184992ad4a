// Seconds until a sweep ends, from what this machine measured: pure, so the rule is tested alone.
// Before, every later run was assumed to take as long as the mean of the sweep's finished runs (or
// the running one's projection): a sweep whose first strategy is quick and whose others are slow was
// promised minutes it did not have, though history held the step times of those very configurations
// on this machine. Now each later run is estimated by the best figure there is for it.

export interface EtaRun {
  /** The spec's configHash: what determines speed (engine, config, model, batch shape). */
  configHash: string;
  /** Steps the runner makes, warm-up included. */
  steps: number;
}

export interface EtaInput {
  /** Every run of the sweep, in order. */
  runs: readonly EtaRun[];
  /** The running run's index, its last step, and its wall seconds per step so far. */
  index: number;
  step: number;
  wallPerStep: number;
  /** Seconds the running run has taken so far, and until its first step (its start-up). */
  runElapsed: number;
  startupHere: number | null;
  /** Wall seconds of this sweep's finished runs, with their configuration. */
  finished: readonly { configHash: string; seconds: number }[];
  /** Seconds per step of configurations run before on this machine (history.measuredStepSeconds). */
  measuredStep: Readonly<Record<string, { seconds: number }>>;
  /** Engine start-up per run on this machine (history.engineStartSeconds), null without runs. */
  startup: number | null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The running run's remaining steps at its pace, plus per later run, the first of: the mean wall
 * time of its configuration's runs finished in this sweep (measured here, now); start-up (this
 * machine's, else the running run's) + its steps at the step time of its configuration — the running
 * run's pace where it is the same configuration, else measured on this machine before; the mean of
 * this sweep's finished runs; the running run's projected duration. Null when the pace is not sane.
 */
export function sweepEta(e: EtaInput): number | null {
  if (!Number.isFinite(e.wallPerStep) || e.wallPerStep <= 0) return null;
  const current = e.runs[e.index];
  const remainingHere = Math.max(0, (current?.steps ?? 0) - e.step) * e.wallPerStep;
  const projected = e.runElapsed + remainingHere;
  const startup = e.startup ?? e.startupHere;
  let later = 0;
  for (const run of e.runs.slice(e.index + 1)) {
    const same = e.finished.filter((f) => f.configHash === run.configHash).map((f) => f.seconds);
    // The running run's own pace is the freshest figure for its configuration; history the next.
    const measured = current && run.configHash === current.configHash ? e.wallPerStep : e.measuredStep[run.configHash]?.seconds;
    if (same.length) later += mean(same);
    else if (measured !== undefined && startup !== null) later += startup + run.steps * measured;
    else if (e.finished.length) later += mean(e.finished.map((f) => f.seconds));
    else later += projected;
  }
  const eta = remainingHere + later;
  // Absurd step times (1e305 s) overflow to Infinity (and Infinity × 0 to NaN): no estimate then.
  return Number.isFinite(eta) ? eta : null;
}
