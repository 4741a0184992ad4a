// SIGHUP (an SSH session drop) killed serve without cancelling the run: the runner
// lived on, the restarted serve marked the run interrupted and started a second runner beside it;
// two serves on one data folder ran two runners at once. Reproduced with real serve processes,
// the fake runner (cancellable) and the hostile runner's `orphan` mode (a runner without the
// parent watchdog: it outlives a killed app). Every test failed on the code before its fix.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../electron/contract';
import { FAKE_PYTHON, WsClient, alive, tinySweep, tmpDir, trackedServes, until, runnerPid } from './helpers';

/** The runner process under serve these tests look for. */
const RUNNER = /fake_runner\.py|hostile_runner\.py/;

const HOSTILE_PYTHON = path.join(import.meta.dirname, 'fixtures', 'hostile-python');

const { serveOn, strays } = trackedServes();

/** Runner processes (anywhere on the machine) started with this data folder's spec files. */
function runnersOf(dataDir: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (/(fake|hostile)_runner\.py/.test(cmd) && cmd.includes(path.join(dataDir, 'specs'))) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

async function startToStep1(ws: WsClient, python: string): Promise<{ sweepId: string; runId: string }> {
  const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(python, { steps: 40 }));
  await ws.waitEvent((e) => e.event === 'runs/progress' && (e.payload as { sweepId: string; step: number }).sweepId === sweepId, 60_000);
  return { sweepId, runId: runIds[0] };
}

const statusOf = async (ws: WsClient, id: string) =>
  (await ws.value<{ runs: RunSummary[] }>('runs/list', {})).runs.find((r) => r.id === id)?.status;

describe('runners never outlive their serve, and one sweep per data folder', () => {
  it('SIGHUP stops serve like SIGTERM: the run is cancelled and its runner ends', { timeout: 90_000 }, async () => {
    const dataDir = tmpDir('os-orphan-hup-');
    const { serve, ws } = await serveOn(dataDir, { FAKE_RUNNER_MODE: 'hang' });
    const { runId } = await startToStep1(ws, FAKE_PYTHON);
    const runner = runnerPid(serve, RUNNER);
    expect(runner).not.toBeNull();
    strays.push(runner!);
    serve.child.kill('SIGHUP');
    const exit = await serve.exited;
    expect(exit.signal, serve.output()).toBeNull(); // exited by itself, not killed by the signal
    await until(() => !alive(runner!), 20_000, 'the runner to end with serve');
    const again = await serveOn(dataDir);
    expect(await statusOf(again.ws, runId)).toBe('cancelled');
  });

  it(
    'a runner left alive by a SIGKILLed serve is ended at the next start-up; no second runner runs beside it',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-orphan-kill-');
      const first = await serveOn(dataDir, { HOSTILE_MODE: 'orphan' });
      const { runId } = await startToStep1(first.ws, HOSTILE_PYTHON);
      const runner = runnerPid(first.serve, RUNNER);
      expect(runner).not.toBeNull();
      strays.push(runner!);
      first.serve.child.kill('SIGKILL');
      await first.serve.exited;
      expect(alive(runner!), 'the orphan runner outlives its serve (no parent watchdog)').toBe(true);
      const second = await serveOn(dataDir, { HOSTILE_MODE: 'orphan' });
      await until(() => !alive(runner!), 15_000, 'the orphan runner to be ended at start-up');
      expect(await statusOf(second.ws, runId)).toBe('interrupted');
      // A new sweep runs alone.
      await startToStep1(second.ws, HOSTILE_PYTHON);
      expect(runnersOf(dataDir)).toHaveLength(1);
    },
  );

  // Issue 48: serve C kept showing the run of a SIGKILLed serve A 'running' for minutes and answered
  // cancelled:false to a cancel that could do nothing; only the next process to start recovered it.
  it(
    'serve A SIGKILLed beside serve C on one data folder: C marks its run interrupted within seconds; cancel answers',
    { timeout: 90_000 },
    async () => {
      const dataDir = tmpDir('os-orphan-shared-');
      const a = await serveOn(dataDir, { FAKE_RUNNER_MODE: 'hang' });
      const c = await serveOn(dataDir, { FAKE_RUNNER_MODE: 'hang' });
      const { sweepId, runId } = await startToStep1(a.ws, FAKE_PYTHON);
      // While A lives, C cannot stop A's runner cleanly: it says whose sweep it is.
      const refused = await c.ws.request('runs/cancel', { sweepId });
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.error.code).toBe('not_here');
        expect(refused.error.message).toContain(`another Offload Studio process (pid ${a.serve.child.pid})`);
      }
      const runner = runnerPid(a.serve, RUNNER);
      if (runner) strays.push(runner);
      a.serve.child.kill('SIGKILL');
      await a.serve.exited;
      const killed = Date.now();
      await until(async () => (await statusOf(c.ws, runId)) === 'interrupted', 15_000, "C to mark the dead serve's run interrupted");
      const noticedMs = Date.now() - killed;
      expect(noticedMs).toBeLessThan(12_000);
      expect(await c.ws.value('runs/cancel', { sweepId })).toEqual({ cancelled: false });
      if (runner) expect(alive(runner)).toBe(false);
      // C runs a sweep of its own at once: A's lock went with A.
      await startToStep1(c.ws, FAKE_PYTHON);
    },
  );

  it(
    'two serves on one data folder: the second refuses to start a sweep while the first runs one (engine_busy naming the process)',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-orphan-two-');
      const a = await serveOn(dataDir, { FAKE_RUNNER_MODE: 'hang' });
      const b = await serveOn(dataDir, { FAKE_RUNNER_MODE: 'hang' });
      const { sweepId } = await startToStep1(a.ws, FAKE_PYTHON);
      const r = await b.ws.request('runs/start', tinySweep(FAKE_PYTHON, { steps: 40 }));
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('engine_busy');
        expect(r.error.message).toContain(
          `Another Offload Studio process (pid ${a.serve.child.pid}) is running a sweep (${sweepId}) on this data folder`,
        );
      }
      expect(runnersOf(dataDir)).toHaveLength(1);
      // Once the first sweep ends (cancelled), the second serve may run one.
      await a.ws.value('runs/cancel', { sweepId });
      await a.ws.waitEvent(
        (e) =>
          e.event === 'runs/status' &&
          (e.payload as { sweepId: string; sweepDone: boolean }).sweepId === sweepId &&
          (e.payload as { sweepDone: boolean }).sweepDone,
        30_000,
      );
      await until(
        async () => (await b.ws.request('runs/start', tinySweep(FAKE_PYTHON, { steps: 2 }))).ok,
        15_000,
        'the second serve to be allowed a sweep',
      );
    },
  );
});
