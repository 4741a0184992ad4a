// Faults injected for real: the runner SIGKILLed mid-run, the serve process SIGKILLed mid-run,
// and a machine "reboot" (every process of the app gone at once, then serve started again on the
// same data folder). After each: no run lost, none left running, PRAGMA integrity_check = ok.
//
// The runner-kill case uses the real engine (DeepSpeed ZeRO-3 + CPU offload on tiny-llama) when
// the engine venv exists; the serve-kill and reboot cases use the fake runner (a real Python child
// speaking the protocol, tests/fixtures/runner-fake) because what they test is the app's side and
// a real run costs ~50 s here. RELIABILITY_REAL_ENGINE=all runs them on the real engine too.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { chooseInterpreter } from '../../electron/services/engine';
import type { RunSummary } from '../../electron/contract';
import { FAKE_PYTHON, WsClient, alive, descendants, integrityCheck, tinySweep, tmpDir, trackedServes, until, runnerPid } from './helpers';

/** The runner process under serve these tests look for. */
const RUNNER = /fake_runner\.py|bench\.py/;

const choice = chooseInterpreter(null);
const realPython = choice.source === 'path' ? null : choice.python;
const allReal = process.env.RELIABILITY_REAL_ENGINE === 'all' && realPython !== null;

// Only the processes these tests start: each serve, the runners under it, the strays named.
const { serveOn, strays: strayPids } = trackedServes();

async function listRuns(ws: WsClient): Promise<RunSummary[]> {
  return (await ws.value<{ runs: RunSummary[] }>('runs/list', {})).runs;
}

async function startAndReachStep(ws: WsClient, python: string, sweepExtra: Record<string, unknown> = {}) {
  const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(python, sweepExtra));
  await ws.waitEvent(
    (e) =>
      e.event === 'runs/progress' &&
      (e.payload as { sweepId: string; step: number }).sweepId === sweepId &&
      (e.payload as { step: number }).step >= 1,
    300_000,
  );
  return { sweepId, runId: runIds[0] };
}

async function completedRun(ws: WsClient): Promise<string> {
  const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>(
    'runs/start',
    tinySweep(FAKE_PYTHON, { steps: 2, tags: ['finished-before'] }),
  );
  await ws.waitEvent(
    (e) =>
      e.event === 'runs/status' &&
      (e.payload as { sweepId: string; sweepDone: boolean }).sweepId === sweepId &&
      (e.payload as { sweepDone: boolean }).sweepDone,
    60_000,
  );
  return runIds[0];
}

describe('faults: processes killed mid-run', () => {
  it(
    `runner SIGKILLed at step ≥ 1 (${realPython ? `real engine: ${realPython}` : 'fake runner: no engine venv'}) → the run ends failed, samples kept, DB intact`,
    { timeout: 400_000 },
    async () => {
      const dataDir = tmpDir();
      const { serve, ws } = await serveOn(dataDir, { FAKE_RUNNER_DELAY: '0.5', FAKE_RUNNER_STEPS: '40' });
      const { runId, sweepId } = await startAndReachStep(ws, realPython ?? FAKE_PYTHON, realPython ? { steps: 40 } : {});
      const pid = runnerPid(serve, RUNNER);
      expect(pid, 'runner process under serve').not.toBeNull();
      process.kill(pid!, 'SIGKILL');
      const end = await ws.waitEvent(
        (e) =>
          e.event === 'runs/status' &&
          (e.payload as { sweepId: string; phase: string }).sweepId === sweepId &&
          (e.payload as { phase: string }).phase === 'finished',
        60_000,
      );
      // SIGKILL without an error line is what the OOM killer looks like: classify.ts names it host_oom.
      expect(end.payload).toMatchObject({
        status: 'failed',
        errorClass: 'host_oom',
        sweepDone: true,
        message: expect.stringMatching(/killed/),
      });
      expect((end.payload as { fix: string | null }).fix, 'a killed run says what to do').toBeTruthy();

      const [run] = await listRuns(ws);
      expect(run).toMatchObject({ id: runId, status: 'failed', errorClass: 'host_oom' });
      const detail = await ws.value<{ samples: unknown[]; exitSignal: string | null }>('runs/get', { id: runId });
      expect(detail.exitSignal).toBe('SIGKILL');
      expect(detail.samples.length, 'steps before the kill are kept').toBeGreaterThanOrEqual(1);
      // The server still answers and can run the next sweep.
      expect((await ws.request('app/info', {})).ok).toBe(true);
      await serve.stop();
      expect(integrityCheck(dataDir)).toBe('ok');
    },
  );

  it(
    'serve SIGKILLed mid-run → after restart on the same data folder the run is interrupted (not running), earlier runs intact, DB ok',
    { timeout: 400_000 },
    async () => {
      const dataDir = tmpDir();
      const first = await serveOn(dataDir, { FAKE_RUNNER_DELAY: '0.3', FAKE_RUNNER_STEPS: '60' });
      const finishedId = await completedRun(first.ws);
      const { runId } = await startAndReachStep(first.ws, allReal ? realPython! : FAKE_PYTHON, allReal ? { steps: 40 } : {});
      const runner = runnerPid(first.serve, RUNNER);
      if (runner) strayPids.push(runner);
      // Fast steps' samples are flushed once a second (sweep.ts): let one flush happen, so "kept" is testable.
      await new Promise((r) => setTimeout(r, 1500));
      process.kill(first.serve.child.pid!, 'SIGKILL');
      expect((await first.serve.exited).signal).toBe('SIGKILL');
      // The orphaned runner loses its stdout pipe; it must not keep a run "running" either way.
      const second = await serveOn(dataDir);
      // (The recovery notice is raised before any client connects; it is kept until acknowledged:
      // recovery-notice.test.ts.)
      const runs = await listRuns(second.ws);
      expect(runs.map((r) => r.id).sort()).toEqual([finishedId, runId].sort()); // none lost
      expect(runs.filter((r) => r.status === 'running' || r.status === 'queued')).toEqual([]);
      expect(runs.find((r) => r.id === runId)).toMatchObject({
        status: 'interrupted',
        errorMessage: expect.stringMatching(/stopped while this run was running/),
      });
      expect(runs.find((r) => r.id === finishedId)).toMatchObject({ status: 'completed', tags: ['finished-before'] });
      expect(runs.find((r) => r.id === finishedId)!.tflopsPerGpu).toBeGreaterThan(0);
      const detail = await second.ws.value<{ samples: unknown[] }>('runs/get', { id: runId });
      expect(detail.samples.length, 'samples flushed before the kill are kept').toBeGreaterThanOrEqual(1);
      await second.serve.stop();
      expect(integrityCheck(dataDir)).toBe('ok');
    },
  );

  it(
    'machine "reboot": serve and runner killed at once, serve restarted on the same folder → interrupted, DB ok',
    { timeout: 400_000 },
    async () => {
      const dataDir = tmpDir();
      const first = await serveOn(dataDir, { FAKE_RUNNER_DELAY: '0.3', FAKE_RUNNER_STEPS: '60' });
      const finishedId = await completedRun(first.ws);
      const { runId } = await startAndReachStep(first.ws, allReal ? realPython! : FAKE_PYTHON, allReal ? { steps: 40 } : {});
      // Power off: every process of the app at the same instant (children first so none reacts).
      const all = [...descendants(first.serve.child.pid!), first.serve.child.pid!];
      for (const pid of all) process.kill(pid, 'SIGKILL');
      await first.serve.exited;
      await until(() => all.every((p) => !alive(p)), 10_000, 'every app process gone');

      const second = await serveOn(dataDir);
      const runs = await listRuns(second.ws);
      expect(runs).toHaveLength(2);
      expect(runs.find((r) => r.id === runId)).toMatchObject({ status: 'interrupted' });
      expect(runs.find((r) => r.id === finishedId)).toMatchObject({ status: 'completed' });
      // A third start (a second boot) finds nothing left to recover: the state is stable.
      await second.serve.stop();
      const third = await serveOn(dataDir);
      const again = await listRuns(third.ws);
      expect(again.map((r) => [r.id, r.status]).sort()).toEqual(runs.map((r) => [r.id, r.status]).sort());
      await third.serve.stop();
      expect(integrityCheck(dataDir)).toBe('ok');
    },
  );

  it(
    "after a real reboot the dead owner's pid may belong to another live process: the run is still recovered",
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir();
      const first = await serveOn(dataDir, { FAKE_RUNNER_DELAY: '0.3', FAKE_RUNNER_STEPS: '60' });
      const { runId } = await startAndReachStep(first.ws, FAKE_PYTHON);
      const all = [...descendants(first.serve.child.pid!), first.serve.child.pid!];
      for (const pid of all) process.kill(pid, 'SIGKILL');
      await first.serve.exited;
      // Before the reboot the row's owner was that serve; after it, its pid is someone else's: here
      // pid 1 (always alive). Rewrite the owner's pid the way a pid reuse would present it.
      const { DatabaseSync } = await import('@photostructure/sqlite');
      const db = new DatabaseSync(`${dataDir}/history.db`);
      const row = db.prepare('SELECT owner FROM runs WHERE id = ?').get(runId) as { owner: string };
      const parts = row.owner.split(':');
      parts[parts.length - 2] = '1';
      db.prepare('UPDATE runs SET owner = ? WHERE id = ?').run(parts.join(':'), runId);
      db.close();
      expect(parts[0]).toBe(os.hostname());

      const second = await serveOn(dataDir);
      const [run] = await listRuns(second.ws);
      expect(run.status, `owner ${parts.join(':')}: a pid alive after a reboot is not the process that ran it`).toBe('interrupted');
      await second.serve.stop();
      expect(integrityCheck(dataDir)).toBe('ok');
    },
  );
});
