// Where a sweep stands, for the Run page's progress bar: pure, from the runs' own states and samples.
// Before, the bar added "the last step event" to the count of finished runs; between one run's end
// and the next one's first step that event was still the finished run's last step (15/15), so it
// was counted twice (78 % → 75 %), the header named the finished run ("Run 2 of 9 — ZeRO-3
// Offload, step 15/15"), and a cancelled sweep read "finished: 12/12, 100 %".
import type { RunProgressEvent } from '../../../../electron/contract';
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import type { LiveRun } from '../../stores/engine';

/** A run's name on the Run page: its strategy, and "#n" for a repeat after the first, as the Runs table
 *  marks it (a sweep of one repeat has no mark anywhere). */
export function liveRunName(run: Pick<LiveRun, 'strategy' | 'repeatIndex'>): string {
  return `${strategyLabel(run.strategy)}${run.repeatIndex > 0 ? ` #${run.repeatIndex + 1}` : ''}`;
}

export interface SweepProgress {
  /** 0…1: runs ended by themselves, plus the share of its steps each other run made; never goes back. */
  fraction: number;
  label: string;
  /** The running run's latest estimate of the time left (the backend's), null between runs. */
  etaSeconds: number | null;
}

const ENDED = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

/** How far one run got through its steps, 0…1, by its own last step event. */
function stepShare(r: LiveRun): number {
  const last = r.samples[r.samples.length - 1];
  return last ? Math.min(1, last.step / Math.max(1, last.total)) : 0;
}

/**
 * What a run adds to the bar: 1 once it ended by itself (completed, failed, interrupted), else the
 * share of its steps it ran — also when it was cancelled: a cancel must not move the bar, neither
 * forward (queued runs cancelled are not work done) nor back (the steps a run made stay made).
 */
function runShare(r: LiveRun): number {
  return ENDED.has(r.status) && r.status !== 'cancelled' ? 1 : stepShare(r);
}

export function sweepProgress(runIds: readonly string[], runs: Readonly<Record<string, LiveRun>>, done: boolean): SweepProgress {
  const n = runIds.length;
  const list = runIds.map((id) => runs[id]).filter((r): r is LiveRun => !!r);
  const count = (status: string) => list.filter((r) => r.status === status).length;
  const [completed, failed, cancelled, interrupted] = ['completed', 'failed', 'cancelled', 'interrupted'].map(count);
  const ended = list.filter((r) => ENDED.has(r.status)).length;
  const fraction = n ? Math.min(1, list.reduce((sum, r) => sum + runShare(r), 0) / n) : 0;
  const others = [failed ? `${failed} failed` : '', interrupted ? `${interrupted} interrupted` : ''].filter(Boolean).join(', ');
  if (cancelled) {
    // How many ran: the ones that ended by themselves, and the one stopped mid-run (with its step).
    const stopped = list.filter((r) => r.status === 'cancelled' && r.samples.length);
    const stoppedWords = stopped.map(
      (r) => `1 cancelled at step ${r.samples[r.samples.length - 1].step}/${r.samples[r.samples.length - 1].total}`,
    );
    const notStarted = list.filter((r) => r.status === 'queued' || (r.status === 'cancelled' && !r.samples.length)).length;
    const ran = ended - cancelled + stopped.length + list.filter((r) => r.status === 'running').length;
    const parts = [`${completed} completed`, others, ...stoppedWords, notStarted ? `${notStarted} not started` : '']
      .filter(Boolean)
      .join(', ');
    const head = done || ended === n ? 'Sweep cancelled' : 'Cancelling the sweep';
    return { fraction, label: `${head} after ${ran} of ${n} run(s): ${parts}`, etaSeconds: null };
  }
  if (done || (n > 0 && ended === n))
    return {
      fraction: 1,
      label: `Sweep finished: ${others ? `${completed} of ${n} run(s) completed, ${others}` : `${completed}/${n} run(s) completed`}`,
      etaSeconds: null,
    };
  // The running run, by its own state and its own last step — never a finished run's last event.
  const current = list.find((r) => r.status === 'running') ?? null;
  const last: RunProgressEvent | undefined = current?.samples[current.samples.length - 1];
  const position = current ? runIds.indexOf(current.runId) + 1 : Math.min(ended + 1, n);
  const what =
    current && last
      ? ` — ${liveRunName(current)}, step ${last.step}/${last.total}${last.warmup ? ' (warm-up)' : ''}`
      : ' — starting the engine…';
  return { fraction, label: `Run ${position} of ${n}${what}`, etaSeconds: last?.etaSeconds ?? null };
}
