// Where a sweep stands, for the Run page's progress bar: pure, from the runs' own states and samples.
// Before, the bar added "the last step event" to the count of finished runs; between one run's end
// and the next one's first step that event was still the finished run's last step (15/15), so it
// was counted twice (78 % → 75 %), the header named the finished run ("Run 2 of 9 — ZeRO-3
// Offload, step 15/15"), and a cancelled sweep read "finished: 12/12, 100 %".
import type { RunProgressEvent } from '../../../../electron/contract';
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import type { LiveRun } from '../../stores/engine';

export interface SweepProgress {
  /** 0…1: runs ended, plus the running run's share of its steps. */
  fraction: number;
  label: string;
  /** The running run's latest estimate of the time left (the backend's), null between runs. */
  etaSeconds: number | null;
}

const ENDED = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

export function sweepProgress(runIds: readonly string[], runs: Readonly<Record<string, LiveRun>>, done: boolean): SweepProgress {
  const n = runIds.length;
  const list = runIds.map((id) => runs[id]).filter((r): r is LiveRun => !!r);
  const count = (status: string) => list.filter((r) => r.status === status).length;
  const [completed, failed, cancelled, interrupted] = ['completed', 'failed', 'cancelled', 'interrupted'].map(count);
  const ended = list.filter((r) => ENDED.has(r.status)).length;
  if (done || (n > 0 && ended === n)) {
    const others = [failed ? `${failed} failed` : '', interrupted ? `${interrupted} interrupted` : ''].filter(Boolean).join(', ');
    // A run cancelled before or while it ran did not finish: a cancelled sweep is not 100 %.
    if (cancelled)
      return { fraction: n ? (ended - cancelled) / n : 0, label: `Sweep cancelled: ${completed} of ${n} run(s) completed${others ? `, ${others}` : ''}, ${cancelled} cancelled`, etaSeconds: null };
    return { fraction: 1, label: `Sweep finished: ${others ? `${completed} of ${n} run(s) completed, ${others}` : `${completed}/${n} run(s) completed`}`, etaSeconds: null };
  }
  // The running run, by its own state and its own last step — never a finished run's last event.
  const current = list.find((r) => r.status === 'running') ?? null;
  const last: RunProgressEvent | undefined = current?.samples[current.samples.length - 1];
  const share = last ? Math.min(1, last.step / Math.max(1, last.total)) : 0;
  const fraction = n ? Math.min(1, (ended + share) / n) : 0;
  const position = current ? runIds.indexOf(current.runId) + 1 : Math.min(ended + 1, n);
  const what = current && last ? ` — ${strategyLabel(current.strategy)}${current.repeatIndex ? ` #${current.repeatIndex + 1}` : ''}, step ${last.step}/${last.total}${last.warmup ? ' (warm-up)' : ''}` : ' — starting the engine…';
  return { fraction, label: `Run ${position} of ${n}${what}`, etaSeconds: last?.etaSeconds ?? null };
}
