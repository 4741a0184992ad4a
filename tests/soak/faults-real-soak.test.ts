// Kill faults, the real-engine part: SIGKILLs of the runner, of `serve`, and of both at once at
// random moments of real DeepSpeed runs (ZeRO-3 + CPU offload on tiny-llama, the engine venv) on
// one data folder. A moment is either during the engine's start-up (before any step: import,
// op load, DeepSpeed init) or just after a random step. After each kill: no run lost, none left
// running/queued, PRAGMA integrity_check ok, every step the client saw more than a flush interval
// before the kill stored, and no process of the run left (bench.py and whatever it started).
// SOAK_REAL_KILLS=N (default 3; a cycle is ~17 s here: DeepSpeed's start-up, a few steps, a restart); skipped without an
// engine venv. RELIABILITY_SEED=<printed> replays the kill plan.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseInterpreter } from '../../electron/services/engine';
import {
  WsClient,
  alive,
  descendants,
  integrityCheck,
  seededRandom,
  spawnServe,
  tinySweep,
  tmpDir,
  until,
  runnerPid,
  type ServeProcess,
} from '../reliability/helpers';

/** The runner process under serve these tests look for. */
const RUNNER = /bench\.py/;

const KILLS = Number(process.env.SOAK_REAL_KILLS ?? 3);
const FLUSH_S = 1;
const choice = chooseInterpreter(null);
const realPython = choice.source === 'path' ? null : choice.python;

let serve: ServeProcess | null = null;
let ws: WsClient | null = null;
const strays: number[] = [];
afterAll(async () => {
  ws?.close();
  if (serve) {
    const kids = serve.child.pid ? descendants(serve.child.pid) : [];
    await serve.stop();
    strays.push(...kids);
  }
  for (const pid of strays) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe.skipIf(!realPython)(`faults soak, real DeepSpeed (${realPython ?? 'no engine venv'}): ${KILLS} SIGKILLs`, () => {
  it(
    '0 runs lost, 0 left running/queued, integrity ok, samples lost only within the last flush, no runner process left',
    { timeout: 60_000 + KILLS * 240_000 },
    async () => {
      const rng = seededRandom('faults-real-soak');
      const dataDir = tmpDir('os-soak-real-');
      const up = async () => {
        serve = await spawnServe(dataDir);
        ws = await WsClient.connect(serve.origin, serve.token);
      };
      await up();
      const runIds = new Set<string>();
      const counts = { runner: 0, serve: 0, both: 0 };
      const moments: string[] = [];
      let maxLost = 0;
      let lostTotal = 0;
      let maxGoneMs = 0;
      const t0 = Date.now();
      for (let cycle = 0; cycle < KILLS; cycle++) {
        // Cycle through the three kinds (so a short run still has each), the moment at random.
        const kind = (['runner', 'serve', 'both'] as const)[cycle % 3];
        const duringStartup = rng.next() < 0.25;
        const atStep = 1 + rng.int(8);
        const extraMs = rng.int(400);
        const { sweepId, runIds: ids } = await ws!.value<{ sweepId: string; runIds: string[] }>(
          'runs/start',
          tinySweep(realPython!, { steps: 200 }),
        );
        const runId = ids[0];
        runIds.add(runId);
        const arrived = new Map<unknown, number>();
        const stamp = setInterval(() => ws!.events.forEach((e) => arrived.has(e.payload) || arrived.set(e.payload, Date.now())), 10);
        const progress = () =>
          ws!.events
            .filter((e) => e.event === 'runs/progress' && (e.payload as { sweepId: string }).sweepId === sweepId)
            .map((e) => ({ step: (e.payload as { step: number }).step, at: arrived.get(e.payload) ?? Date.now() }));
        let moment: string;
        if (duringStartup) {
          // Somewhere in the engine's start-up: 1–12 s after bench.py appeared, before step 1.
          await until(() => runnerPid(serve!, RUNNER) !== null, 60_000, `bench.py of cycle ${cycle}`);
          const wait = 1000 + rng.int(11_000);
          await until(() => progress().length > 0, wait, 'x').catch(() => undefined);
          moment = progress().length ? `step ${progress().at(-1)!.step} (start-up wait ${wait} ms ran into steps)` : `start-up +${wait} ms`;
        } else {
          await until(() => progress().some((p) => p.step >= atStep), 300_000, `step ${atStep} of cycle ${cycle}`);
          await new Promise((r) => setTimeout(r, extraMs));
          moment = `step ${atStep} +${extraMs} ms`;
        }
        const runner = runnerPid(serve!, RUNNER);
        // The run's processes: bench.py and what it started (serve's other children, e.g. a probe, are not the run's).
        const tree = runner ? [runner, ...descendants(runner)] : [];
        strays.push(...tree);
        const killedAt = Date.now();
        clearInterval(stamp);
        if ((kind === 'runner' || kind === 'both') && runner) process.kill(runner, 'SIGKILL');
        if (kind === 'serve' || kind === 'both') process.kill(serve!.child.pid!, 'SIGKILL');
        counts[kind]++;
        const seen = progress();
        moments.push(`${kind}@${moment}`);
        if (kind === 'runner') {
          await ws!.waitEvent(
            (e) =>
              e.event === 'runs/status' &&
              (e.payload as { sweepId: string }).sweepId === sweepId &&
              (e.payload as { sweepDone: boolean }).sweepDone,
            60_000,
          );
        } else {
          await serve!.exited;
          ws!.close();
        }
        // No process of the run is left: bench.py (the parent watchdog when serve died) and its children.
        const cmd = (p: number) => {
          try {
            return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 200);
          } catch {
            return 'gone';
          }
        };
        await until(
          () => tree.every((p) => !alive(p)),
          30_000,
          `cycle ${cycle}: every process of the run gone (${tree.map((p) => `${p}: ${cmd(p)}`).join('; ')})`,
        );
        const goneMs = Date.now() - killedAt;
        maxGoneMs = Math.max(maxGoneMs, goneMs);
        if (kind !== 'runner') await up();
        const runs = (await ws!.value<{ runs: { id: string; status: string }[] }>('runs/list', {})).runs;
        expect(new Set(runs.map((r) => r.id)), `cycle ${cycle}: no run lost`).toEqual(runIds);
        expect(
          runs.filter((r) => r.status === 'running' || r.status === 'queued'),
          `cycle ${cycle}`,
        ).toEqual([]);
        expect(runs.find((r) => r.id === runId)?.status, `cycle ${cycle} (${kind})`).toBe(kind === 'runner' ? 'failed' : 'interrupted');
        expect(integrityCheck(dataDir), `cycle ${cycle}`).toBe('ok');
        const stored = (await ws!.value<{ samples: { step: number }[] }>('runs/get', { id: runId })).samples.length;
        const mustHave = seen.filter((p) => p.at <= killedAt - (FLUSH_S + 0.5) * 1000).length;
        expect(stored, `cycle ${cycle} (${kind} at ${moment})`).toBeGreaterThanOrEqual(mustHave);
        const lost = Math.max(0, seen.length - stored);
        maxLost = Math.max(maxLost, lost);
        lostTotal += lost;
        console.log(
          `[faults-real-soak] cycle ${cycle}: ${kind} at ${moment}: ${seen.length} steps seen, ${stored} stored, runner processes gone in ${goneMs} ms`,
        );
      }
      console.log(
        `[faults-real-soak] ${KILLS} kills of real DeepSpeed runs (runner ${counts.runner}, serve ${counts.serve}, both ${counts.both}) in ${((Date.now() - t0) / 1000).toFixed(0)} s: ` +
          `${runIds.size} runs, 0 lost, 0 running/queued, integrity ok each time, no runner process left (slowest gone ${maxGoneMs} ms after the kill); samples lost per kill max ${maxLost}, total ${lostTotal}; moments: ${moments.join(', ')}`,
      );
    },
  );
});
