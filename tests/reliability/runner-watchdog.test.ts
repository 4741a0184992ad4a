// An app crash must not leave a runner training (holding GPU and pinned memory) until
// its next write fails. `serve` is SIGKILLed mid-step (it cannot stop anything itself); the runner's
// parent-death watchdog (resources/engine/parent_watch.py: protocol pipe closed, app pid gone,
// parent changed) must end it and its children within seconds. Fake runner (same watchdog module),
// and the real engine (DeepSpeed ZeRO-3 + CPU offload on tiny-llama) when the engine venv exists.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseInterpreter } from '../../electron/services/engine';
import { FAKE_PYTHON, WsClient, alive, descendants, spawnServe, tinySweep, tmpDir, until, runnerPid, type ServeProcess } from './helpers';

/** The runner process under serve these tests look for. */
const RUNNER = /fake_runner\.py|bench\.py/;

const choice = chooseInterpreter(null);
const realPython = choice.source === 'path' ? null : choice.python;

const strays: number[] = [];
const clients: WsClient[] = [];
const serves: ServeProcess[] = [];
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  for (const s of serves.splice(0)) await s.stop();
  for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/** Alive and not a zombie (a zombie holds no memory; its new parent reaps it). */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function killAppMidStep(python: string, sweepExtra: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  const serve = await spawnServe(tmpDir('os-watchdog-'), env);
  serves.push(serve);
  const ws = await WsClient.connect(serve.origin, serve.token);
  clients.push(ws);
  const { sweepId } = await ws.value<{ sweepId: string }>('runs/start', tinySweep(python, sweepExtra));
  await ws.waitEvent(
    (e) =>
      e.event === 'runs/progress' &&
      (e.payload as { sweepId: string; step: number }).sweepId === sweepId &&
      (e.payload as { step: number }).step >= 1,
    300_000,
  );
  const runner = runnerPid(serve, RUNNER);
  expect(runner, 'runner under serve').not.toBeNull();
  const tree = [runner!, ...descendants(runner!)]; // the runner and whatever it started (CPU Adam workers)
  strays.push(...tree);
  const t0 = Date.now();
  process.kill(serve.child.pid!, 'SIGKILL'); // the app crashes: nothing on its side stops the runner
  await serve.exited;
  await until(() => tree.every((pid) => !running(pid)), 30_000, `runner ${runner} and its children to end after the app died`);
  const ms = Date.now() - t0;
  console.log(
    `[runner-watchdog] ${python === FAKE_PYTHON ? 'fake runner' : 'bench.py'}: ${tree.length} process(es) gone ${ms} ms after serve was SIGKILLed`,
  );
  return ms;
}

describe('a runner does not outlive its app', () => {
  it("fake runner (steps of 2 s, so no write would fail soon): gone within seconds of serve's SIGKILL", { timeout: 120_000 }, async () => {
    const ms = await killAppMidStep(FAKE_PYTHON, { steps: 100 }, { FAKE_RUNNER_DELAY: '2' });
    expect(ms).toBeLessThan(5_000);
  });

  it.skipIf(!realPython)(
    `real engine (${realPython ?? 'no engine venv'}): bench.py and its workers gone after serve's SIGKILL mid-step`,
    { timeout: 400_000 },
    async () => {
      const ms = await killAppMidStep(realPython!, { steps: 400 }, {});
      expect(ms).toBeLessThan(15_000);
    },
  );
});
