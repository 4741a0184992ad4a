// Sweeps end to end against a real SQLite store and the fake runner: lifecycle rows, samples,
// events, cancel, a runner killed mid-run.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRequest, type RunLogEvent, type RunProgressEvent, type RunSpec, type RunStatusEvent } from '../../../electron/contract';
import { startSweep, type SweepDeps } from '../../../electron/services/engine';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { FAKE_MACHINE, fakeLaunch, fixedPlanner, tinySpec, tmpDir } from './helpers';

const stores: HistoryStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function setup(modes: string[], extra: Partial<SweepDeps> = {}) {
  const dataDir = tmpDir();
  const history = openHistory(dataDir);
  stores.push(history);
  const progress: RunProgressEvent[] = [];
  const status: RunStatusEvent[] = [];
  const logs: RunLogEvent[] = [];
  let n = 0;
  const deps: SweepDeps = {
    history,
    dataDir,
    planner: fixedPlanner,
    events: { progress: (e) => progress.push(e), status: (e) => status.push(e), log: (e) => logs.push(e) },
    machine: async () => FAKE_MACHINE,
    launch: (specFile) => fakeLaunch(specFile, modes[Math.min(n++, modes.length - 1)]),
    graceMs: 500,
    ...extra,
  };
  return { dataDir, history, deps, progress, status, logs };
}

const request = (over: Record<string, unknown> = {}) =>
  parseRequest('runs/start', {
    workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
    strategies: ['zero3-offload', 'zero2-offload'],
    steps: 4,
    warmup: 1,
    ...over,
  });

describe('sweeps', () => {
  it('runs strategies × repeats in order and stores every run, its samples, snapshot, spec, log and prediction', async () => {
    const { history, deps, progress, status, logs } = setup(['ok']);
    const sweep = await startSweep(request({ repeats: 2 }), deps);
    expect(sweep.runIds).toHaveLength(4);
    const ends = await sweep.done;
    expect(ends.map((e) => `${e.strategy}#${e.repeatIndex}:${e.status}`)).toEqual([
      'zero3-offload#0:completed',
      'zero2-offload#0:completed',
      'zero3-offload#1:completed',
      'zero2-offload#1:completed',
    ]);
    const { runs } = history.listRuns({});
    expect(runs).toHaveLength(4);
    const detail = history.getRun(sweep.runIds[0])!;
    expect(detail.summary).toMatchObject({
      status: 'completed',
      sweepId: sweep.id,
      machineId: 'm-test',
      tflopsPerGpu: 0.5,
      stepSeconds: 0.01,
    });
    expect(detail.samples).toHaveLength(5);
    expect(detail.samples[0]).toMatchObject({ step: 1, warmup: true, loss: 2, hostRssBytes: 100_000_000 });
    expect(detail.spec).toMatchObject({ runId: sweep.runIds[0], steps: 5, warmup: 1, engine: 'deepspeed' });
    expect(detail.snapshot).toMatchObject({ hostname: 'test-host' });
    expect(detail.hello).toMatchObject({ type: 'hello', runnerVersion: 'fake-1' });
    expect(detail.config).toMatchObject({ type: 'config', params: 1000 });
    expect(detail.predicted).toMatchObject({ tflopsPerGpu: 0.4, stepSeconds: 0.02 });
    expect(detail.logTail.some((l) => l.includes('fake runner pid'))).toBe(true);
    expect(fs.existsSync(detail.logPath!)).toBe(true);
    // One snapshot row for the whole sweep (deduplicated by content).
    expect((history.db.prepare('SELECT COUNT(*) AS n FROM snapshots').get() as { n: number }).n).toBe(1);
    // Events: a progress event per step, started+finished per run, the last says the sweep is done.
    expect(progress).toHaveLength(20);
    expect(progress[4]).toMatchObject({ runIndex: 0, runCount: 4, step: 5, total: 5, warmup: false });
    expect(progress.at(-1)!.etaSeconds).toBe(0);
    expect(status.map((s) => s.phase)).toEqual(Array(4).fill(['started', 'finished']).flat());
    expect(status.filter((s) => s.sweepDone)).toHaveLength(1);
    expect(status.at(-1)!.sweepDone).toBe(true);
    expect(logs.flatMap((l) => l.lines).some((l) => l.includes('fake runner pid'))).toBe(true);
  });

  it('a runner SIGKILLed mid-run ends failed (host_oom) with its samples kept; the sweep goes on', async () => {
    const { history, deps } = setup(['sigkill-self', 'ok']);
    const sweep = await startSweep(request(), deps);
    const ends = await sweep.done;
    expect(ends.map((e) => e.status)).toEqual(['failed', 'completed']);
    const failed = history.getRun(sweep.runIds[0])!;
    expect(failed.summary).toMatchObject({ status: 'failed', errorClass: 'host_oom' });
    expect(failed.summary.errorMessage).toMatch(/killed by the OS — likely out of host memory/);
    expect(failed.errorFix).toMatch(/host memory/);
    expect(failed.exitSignal).toBe('SIGKILL');
    expect(failed.samples.map((s) => s.step)).toEqual([1, 2]);
  });

  it('cancel stops the current run gracefully and cancels the queued ones', async () => {
    const { history, deps, progress, status } = setup(['hang']);
    const sweep = await startSweep(request({ repeats: 2 }), deps);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 20));
    sweep.cancel();
    const ends = await sweep.done;
    expect(ends.map((e) => e.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
    const first = history.getRun(sweep.runIds[0])!;
    expect(first.summary).toMatchObject({ status: 'cancelled', errorClass: 'cancelled' });
    expect(first.exitCode).toBe(130);
    expect(first.samples).toHaveLength(1);
    expect(history.getRun(sweep.runIds[1])!.summary.errorMessage).toBe('Cancelled before it started.');
    expect(history.getRun(sweep.runIds[1])!.summary.startedAt).toBeNull();
    expect(status.at(-1)!.sweepDone).toBe(true);
    expect(history.listRuns({ status: 'running' }).total).toBe(0);
  });

  it('a forced cancel (runner ignores SIGINT) is recorded cancelled too', async () => {
    const { history, deps, progress } = setup(['ignore-sigint']);
    const sweep = await startSweep(request({ strategies: ['zero3-offload'] }), deps);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 20));
    sweep.cancel();
    await sweep.done;
    expect(history.getRun(sweep.runIds[0])!).toMatchObject({ summary: { status: 'cancelled' }, exitSignal: 'SIGKILL' });
  });

  it('an unknown strategy fails before anything is written', async () => {
    const { history, deps } = setup(['ok']);
    await expect(startSweep(request({ strategies: ['zero3-offload', 'nope'] }), deps)).rejects.toThrow(/unknown strategy 'nope'/);
    expect(history.listRuns({}).total).toBe(0);
  });

  it('a run whose loss became NaN is stored failed with class diverged; the sweep goes on', async () => {
    const { history, deps, status } = setup(['diverged', 'nan-loss', 'ok']);
    const sweep = await startSweep(request({ strategies: ['zero3-offload', 'zero2-offload', 'zero3-offload-param'] }), deps);
    const ends = await sweep.done;
    expect(ends.map((e) => `${e.status}:${e.errorClass}`)).toEqual(['failed:diverged', 'failed:diverged', 'completed:null']);
    for (const id of sweep.runIds.slice(0, 2)) {
      const run = history.getRun(id)!;
      expect(run.summary).toMatchObject({ status: 'failed', errorClass: 'diverged' });
      expect(run.samples[1].loss).toBeNull();
    }
    expect(status.filter((s) => s.phase === 'finished').map((s) => s.errorClass)).toEqual(['diverged', 'diverged', null]);
  });

  it('a model the runner cannot build is refused before anything is written, naming the field', async () => {
    const { history, deps } = setup(['ok']);
    const gpt2 = tinySpec('zero2-offload');
    const long = {
      ...gpt2,
      model: { ...gpt2.model, id: 'gpt2', family: 'gpt2' as const, ropeTheta: 0, maxPositionEmbeddings: 1024 },
      seqLen: 2048,
    };
    await expect(startSweep(request({ workload: undefined, strategies: undefined, specs: [gpt2, long] }), deps)).rejects.toMatchObject({
      code: 'unsupported_model',
      field: 'seqLen',
      message: expect.stringMatching(/at most 1,024 positions/),
    });
    const noTheta = { ...gpt2, model: { ...gpt2.model, ropeTheta: 0 } };
    await expect(startSweep(request({ workload: undefined, strategies: undefined, specs: [noTheta] }), deps)).rejects.toMatchObject({
      field: 'model.ropeTheta',
    });
    expect(history.listRuns({}).total).toBe(0);
  });

  it('a per-run time limit ends the run as timeout', async () => {
    const { history, deps } = setup(['hang'], { timeoutMs: 1200 });
    const sweep = await startSweep(request({ strategies: ['zero3-offload'] }), deps);
    await sweep.done;
    expect(history.getRun(sweep.runIds[0])!.summary).toMatchObject({ status: 'failed', errorClass: 'timeout' });
  });
});

describe('sweeps of specs', () => {
  it('runs the given specs unchanged (but runId/steps/warm-up), repeats outer, and lists which run is which', async () => {
    const { history, deps } = setup(['ok']);
    const specs = [tinySpec('zero3-offload'), tinySpec('zero2-offload')];
    const sweep = await startSweep(parseRequest('runs/start', { specs, repeats: 2, steps: 3, warmup: 1 }), deps);
    expect(sweep.runs.map((r) => `${r.strategy}#${r.repeatIndex}`)).toEqual([
      'zero3-offload#0',
      'zero2-offload#0',
      'zero3-offload#1',
      'zero2-offload#1',
    ]);
    expect(sweep.runs.map((r) => r.runId)).toEqual(sweep.runIds);
    await sweep.done;
    for (const [i, run] of sweep.runs.entries()) {
      const stored = history.getRun(run.runId)!.spec as RunSpec;
      const { runId, steps, warmup, ...rest } = stored;
      const { runId: _r, steps: _s, warmup: _w, ...planned } = specs[i % 2];
      expect(rest).toEqual(planned);
      expect({ runId, steps, warmup }).toEqual({ runId: run.runId, steps: 4, warmup: 1 });
      expect(history.getRun(run.runId)!.summary.strategy).toBe(run.strategy);
    }
  });

  it('refuses a request with both specs and a workload, naming the field', () => {
    expect(() =>
      parseRequest('runs/start', {
        specs: [tinySpec('zero3-offload')],
        workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
        strategies: ['x'],
      }),
    ).toThrow(/specs/);
    expect(() => parseRequest('runs/start', { workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 } })).toThrow(
      /strategies/,
    );
  });
});
