// The sweep's time estimate: later runs are counted at what this machine measured for
// their configuration — in this sweep, or before (history) — not at the mean of whatever finished.
import { describe, expect, it } from 'vitest';
import { sweepEta, type EtaInput } from '../../../electron/services/engine/sweep-eta';
import { startSweep } from '../../../electron/services/engine';
import { openHistory } from '../../../electron/services/history';
import { parseRequest, type RunProgressEvent } from '../../../electron/contract';
import { FAKE_MACHINE, fakeLaunch, fixedPlanner, tmpDir } from './helpers';

const base: EtaInput = {
  runs: [
    { configHash: 'quick', steps: 10 },
    { configHash: 'slow', steps: 10 },
    { configHash: 'quick', steps: 10 },
    { configHash: 'slow', steps: 10 },
  ],
  index: 0,
  step: 5,
  wallPerStep: 1,
  runElapsed: 25, // 20 s start-up + 5 steps
  startupHere: 20,
  finished: [],
  measuredStep: {},
  startup: null,
};

describe('sweepEta', () => {
  it('counts a later run of another configuration at the step time this machine measured for it', () => {
    // 5 steps left here; quick again: 20 + 10×1 (this run's pace); each slow: start-up 30 + 10×6.
    expect(sweepEta({ ...base, measuredStep: { slow: { seconds: 6 } }, startup: 30 })).toBe(5 + (30 + 10) + 2 * (30 + 60));
    // Before, every later run counted as the running one's projection (30 s): 5 + 3×30 = 95, under half of it.
    expect(sweepEta(base)).toBe(5 + 3 * 30);
  });

  it("prefers this sweep's finished runs of the same configuration, then the mean of any finished", () => {
    const finished = [
      { configHash: 'quick', seconds: 30 },
      { configHash: 'slow', seconds: 100 },
    ];
    expect(sweepEta({ ...base, index: 2, finished, measuredStep: { slow: { seconds: 1 } }, startup: 5 })).toBe(5 + 100);
    expect(
      sweepEta({
        ...base,
        index: 0,
        runs: [base.runs[0], { configHash: 'other', steps: 10 }],
        finished: [{ configHash: 'x', seconds: 50 }],
      }),
    ).toBe(5 + 50);
  });

  it('has no estimate without a sane pace', () => {
    expect(sweepEta({ ...base, wallPerStep: 0 })).toBeNull();
    expect(sweepEta({ ...base, wallPerStep: 1e308, step: 0 })).toBeNull();
  });

  it("in a real sweep, the first run's estimate counts the second strategy at its step time measured here before", async () => {
    const dataDir = tmpDir();
    const history = openHistory(dataDir);
    try {
      const deps = (progress: RunProgressEvent[]) => ({
        history,
        dataDir,
        planner: fixedPlanner,
        machine: async () => FAKE_MACHINE,
        graceMs: 500,
        events: { progress: (e: RunProgressEvent) => progress.push(e), status: () => {}, log: () => {} },
        launch: (specFile: string) => fakeLaunch(specFile, 'ok'),
      });
      const request = (strategies: string[]) =>
        parseRequest('runs/start', {
          workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
          strategies,
          steps: 4,
          warmup: 1,
        });
      // zero2-offload measured on this machine before: make its stored steps slow (60 s each).
      await (
        await startSweep(request(['zero2-offload']), deps([]))
      ).done;
      history.db
        .prepare("UPDATE samples SET step_seconds = 60 WHERE run_id IN (SELECT id FROM runs WHERE strategy = 'zero2-offload')")
        .run();
      const progress: RunProgressEvent[] = [];
      await (
        await startSweep(request(['zero3-offload', 'zero2-offload']), deps(progress))
      ).done;
      const first = progress.find((e) => e.runIndex === 0 && e.step === 5)!;
      // The second run counts 5 steps × 60 s measured here (not the fake runner's 0.01 s pace of run 1).
      expect(first.etaSeconds!).toBeGreaterThan(5 * 60);
      expect(first.etaSeconds!).toBeLessThan(5 * 60 + 120);
    } finally {
      history.close();
    }
  }, 60_000);
});
