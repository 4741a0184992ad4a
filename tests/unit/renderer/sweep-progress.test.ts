// The Run page's progress bar, fed the events of a sweep in the order the backend sends them: the
// percentage never goes back, the header names the run that is running (not the one that just
// ended), and a cancelled sweep says it was cancelled instead of "finished: 12/12, 100 %".
import { describe, expect, it } from 'vitest';
import type { RunProgressEvent } from '../../../electron/contract';
import { liveRunName, sweepProgress } from '../../../renderer/src/pages/run/progress';
import type { LiveRun } from '../../../renderer/src/stores/engine';

const STEPS = 15;
type Runs = Record<string, LiveRun>;

function sweep(strategies: string[]): { ids: string[]; runs: Runs } {
  const ids = strategies.map((_, i) => `r-${i + 1}`);
  const runs: Runs = {};
  strategies.forEach(
    (strategy, i) =>
      (runs[ids[i]] = {
        runId: ids[i],
        strategy,
        repeatIndex: 0,
        status: 'queued',
        errorClass: null,
        message: null,
        fix: null,
        samples: [],
      }),
  );
  return { ids, runs };
}

const step = (runId: string, n: number): RunProgressEvent =>
  ({ runId, step: n, total: STEPS, warmup: n <= 3, etaSeconds: 100 - n }) as unknown as RunProgressEvent;

/** The engine store's reducers, as applied to runs/status and runs/progress. */
const started = (runs: Runs, id: string): Runs => ({ ...runs, [id]: { ...runs[id], status: 'running' } });
const progressed = (runs: Runs, id: string, n: number): Runs => ({
  ...runs,
  [id]: { ...runs[id], status: 'running', samples: [...runs[id].samples, step(id, n)] },
});
const ended = (runs: Runs, id: string, status: LiveRun['status']): Runs => ({ ...runs, [id]: { ...runs[id], status } });

describe('sweep progress', () => {
  it('only goes forward through a sweep of three runs, and names the run that is running', () => {
    let { ids, runs } = sweep(['zero3-offload', 'superoffload', 'zero2-offload']);
    const seen: number[] = [];
    const labels: string[] = [];
    const look = () => {
      const p = sweepProgress(ids, runs, false);
      seen.push(p.fraction);
      labels.push(p.label);
      return p;
    };
    look();
    for (const id of ids) {
      runs = started(runs, id);
      look();
      for (let n = 1; n <= STEPS; n++) ((runs = progressed(runs, id, n)), look());
      runs = ended(runs, id, 'completed');
      const between = look();
      // Between runs: the finished run is counted once, and the header does not name it.
      if (id !== ids[ids.length - 1]) {
        expect(between.label).toMatch(/starting the engine/);
        expect(between.label).not.toMatch(/step 15\/15/);
        expect(between.etaSeconds).toBeNull();
      }
    }
    for (let i = 1; i < seen.length; i++)
      expect(seen[i], `event ${i}: ${labels[i - 1]} → ${labels[i]}`).toBeGreaterThanOrEqual(seen[i - 1]);
    expect(seen[seen.length - 1]).toBe(1);
    // During the second run, the header is the second run's.
    runs = sweep(['zero3-offload', 'superoffload']).runs;
    runs = ended(progressed(started(runs, 'r-1'), 'r-1', STEPS), 'r-1', 'completed');
    runs = progressed(started(runs, 'r-2'), 'r-2', 4);
    const p = sweepProgress(['r-1', 'r-2'], runs, false);
    expect(p.label).toBe('Run 2 of 2 — SuperOffload, step 4/15');
    expect(p.fraction).toBeCloseTo((1 + 4 / STEPS) / 2);
    expect(p.etaSeconds).toBe(96);
  });

  it('a cancelled sweep says so and how many ran, not 100 %, and the bar never goes back while it cancels', () => {
    let { ids, runs } = sweep(Array.from({ length: 12 }, (_, i) => (i % 2 ? 'superoffload' : 'zero3-offload')));
    for (const id of ids.slice(0, 3)) runs = ended(progressed(started(runs, id), id, STEPS), id, 'completed');
    runs = progressed(started(runs, ids[3]), ids[3], 5);
    const seen = [sweepProgress(ids, runs, false).fraction];
    expect(seen[0]).toBeCloseTo((3 + 5 / STEPS) / 12);
    // The backend's order: the running run ends cancelled, then each queued run is skipped, then done.
    runs = ended(runs, ids[3], 'cancelled');
    const cancelling = sweepProgress(ids, runs, false);
    seen.push(cancelling.fraction);
    expect(cancelling.label).toBe('Cancelling the sweep after 4 of 12 run(s): 3 completed, 1 cancelled at step 5/15, 8 not started');
    for (const id of ids.slice(4)) ((runs = ended(runs, id, 'cancelled')), seen.push(sweepProgress(ids, runs, false).fraction));
    const p = sweepProgress(ids, runs, true);
    seen.push(p.fraction);
    expect(p.label).toBe('Sweep cancelled after 4 of 12 run(s): 3 completed, 1 cancelled at step 5/15, 8 not started');
    expect(p.label).not.toMatch(/finished/);
    // Neither the queued runs' cancel (once read as 11 of 12 ended) nor the sweep's end moves the bar.
    for (const f of seen) expect(f).toBeCloseTo(seen[0], 10);
  });

  it('a sweep that ran to its end says how many completed, and any that failed', () => {
    let { ids, runs } = sweep(['zero3-offload', 'superoffload', 'zero2-offload']);
    for (const id of ids) runs = ended(progressed(started(runs, id), id, STEPS), id, id === 'r-2' ? 'failed' : 'completed');
    expect(sweepProgress(ids, runs, true)).toEqual({
      fraction: 1,
      label: 'Sweep finished: 2 of 3 run(s) completed, 1 failed',
      etaSeconds: null,
    });
    runs = ended(runs, 'r-2', 'completed');
    expect(sweepProgress(ids, runs, true).label).toBe('Sweep finished: 3/3 run(s) completed');
  });

  it("names a run without a repeat mark where it is a sweep's only repeat, as the Runs table does", () => {
    expect(liveRunName({ strategy: 'zero3-offload', repeatIndex: 0 })).not.toMatch(/#/);
    expect(liveRunName({ strategy: 'zero3-offload', repeatIndex: 2 })).toMatch(/ #3$/);
  });
});
