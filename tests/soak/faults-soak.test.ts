// Kill faults (short CI version; SOAK_KILLS=100 for the full one): SIGKILLs of the runner, of
// `serve`, and of both at once, at random moments of fake-runner runs on one data folder. After
// each: no run lost, none left running/queued, PRAGMA integrity_check ok, and every step older than
// the last flush interval (1 s) stored. Seeded: RELIABILITY_SEED=<printed> replays the kill plan.
import { afterAll, describe, expect, it } from 'vitest';
import {
  FAKE_PYTHON,
  WsClient,
  alive,
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
const RUNNER = /fake_runner\.py/;

const KILLS = Number(process.env.SOAK_KILLS ?? 12);
const FLUSH_S = 1;

let serve: ServeProcess | null = null;
let ws: WsClient | null = null;
const strays: number[] = [];
afterAll(async () => {
  ws?.close();
  await serve?.stop();
  for (const pid of strays) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe(`faults soak: ${KILLS} SIGKILLs (runner / serve / both) at random moments`, () => {
  it(
    '0 runs lost, 0 left running/queued, integrity ok, samples lost only within the last flush',
    { timeout: 60_000 + KILLS * 30_000 },
    async () => {
      const rng = seededRandom('faults-soak');
      const dataDir = tmpDir('os-soak-');
      const env = { FAKE_RUNNER_DELAY: '0.05' };
      const up = async () => {
        serve = await spawnServe(dataDir, env);
        ws = await WsClient.connect(serve.origin, serve.token);
      };
      await up();
      const runIds = new Set<string>();
      const counts = { runner: 0, serve: 0, both: 0 };
      let maxLost = 0;
      let lostTotal = 0;
      const t0 = Date.now();
      for (let cycle = 0; cycle < KILLS; cycle++) {
        const kind = (['runner', 'serve', 'both'] as const)[rng.int(3)];
        const atStep = 1 + rng.int(30); // 0.05–1.5 s into the run
        const { sweepId, runIds: ids } = await ws!.value<{ sweepId: string; runIds: string[] }>(
          'runs/start',
          tinySweep(FAKE_PYTHON, { steps: 400 }),
        );
        const runId = ids[0];
        runIds.add(runId);
        // When each event reached this client (polled every 10 ms: WsClient keeps no arrival time).
        const arrived = new Map<unknown, number>();
        const stamp = setInterval(() => ws!.events.forEach((e) => arrived.has(e.payload) || arrived.set(e.payload, Date.now())), 10);
        const progress = () =>
          ws!.events
            .filter((e) => e.event === 'runs/progress' && (e.payload as { sweepId: string }).sweepId === sweepId)
            .map((e) => ({ step: (e.payload as { step: number }).step, at: arrived.get(e.payload) ?? Date.now() }));
        await until(() => progress().some((p) => p.step >= atStep), 60_000, `step ${atStep} of cycle ${cycle}`);
        const runner = runnerPid(serve!, RUNNER);
        if (runner) strays.push(runner);
        const killedAt = Date.now();
        clearInterval(stamp);
        if (kind === 'runner' || kind === 'both') if (runner) process.kill(runner, 'SIGKILL');
        if (kind === 'serve' || kind === 'both') process.kill(serve!.child.pid!, 'SIGKILL');
        counts[kind]++;
        const seen = progress();
        if (kind === 'runner') {
          await ws!.waitEvent(
            (e) =>
              e.event === 'runs/status' &&
              (e.payload as { sweepId: string; sweepDone: boolean }).sweepId === sweepId &&
              (e.payload as { sweepDone: boolean }).sweepDone,
            30_000,
          );
        } else {
          await serve!.exited;
          ws!.close();
          if (runner) await until(() => !alive(runner), 15_000, `runner ${runner} gone (watchdog)`);
          await up();
        }
        const runs = (await ws!.value<{ runs: { id: string; status: string }[] }>('runs/list', {})).runs;
        expect(new Set(runs.map((r) => r.id)), `cycle ${cycle}: no run lost`).toEqual(runIds);
        expect(
          runs.filter((r) => r.status === 'running' || r.status === 'queued'),
          `cycle ${cycle}`,
        ).toEqual([]);
        expect(integrityCheck(dataDir), `cycle ${cycle}`).toBe('ok');
        const stored = (await ws!.value<{ samples: { step: number }[] }>('runs/get', { id: runId })).samples.length;
        // Steps the client saw more than a flush interval before the kill (+0.5 s for timer slip on a loaded machine) are stored.
        const mustHave = seen.filter((p) => p.at <= killedAt - (FLUSH_S + 0.5) * 1000).length;
        expect(stored, `cycle ${cycle} (${kind} at step ${atStep})`).toBeGreaterThanOrEqual(mustHave);
        const lost = Math.max(0, seen.length - stored);
        maxLost = Math.max(maxLost, lost);
        lostTotal += lost;
      }
      console.log(
        `[faults-soak] ${KILLS} kills (runner ${counts.runner}, serve ${counts.serve}, both ${counts.both}) in ${((Date.now() - t0) / 1000).toFixed(0)} s: ` +
          `${runIds.size} runs, 0 lost, 0 running/queued, integrity ok each time; samples lost per kill max ${maxLost} (steps of 0.05 s: ≤ 1 s of steps), total ${lostTotal}`,
      );
    },
  );
});
