// Samples used to be flushed once a second, so a kill lost the steps since the
// last flush. A step that comes a flush interval or more after the previous one is now stored at
// once (sweep.ts): with steps slower than the interval, every step a client has seen is in
// history.db when `serve` is SIGKILLed right after its progress event, and kept after a restart.
import { afterEach, describe, expect, it } from 'vitest';
import {
  FAKE_PYTHON,
  WsClient,
  alive,
  descendants,
  integrityCheck,
  spawnServe,
  tinySweep,
  tmpDir,
  until,
  type ServeProcess,
} from './helpers';

const serves: ServeProcess[] = [];
const clients: WsClient[] = [];
const strays: number[] = [];
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  for (const s of serves.splice(0)) await s.stop();
  for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe('samples of slow steps are stored as each step arrives', () => {
  it(
    'steps of 1.2 s (flush interval 1 s): serve SIGKILLed right after the progress event of step k → k samples kept',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-flush-');
      const first = await spawnServe(dataDir, { FAKE_RUNNER_DELAY: '1.2' });
      serves.push(first);
      const ws = await WsClient.connect(first.origin, first.token);
      clients.push(ws);
      const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>(
        'runs/start',
        tinySweep(FAKE_PYTHON, { steps: 30 }),
      );
      const killAt = 2 + Math.floor(Math.random() * 3); // step 2..4: no fixed phase against the 1 s timer
      await ws.waitEvent(
        (e) =>
          e.event === 'runs/progress' &&
          (e.payload as { sweepId: string; step: number }).sweepId === sweepId &&
          (e.payload as { step: number }).step >= killAt,
        60_000,
      );
      strays.push(...descendants(first.child.pid!));
      process.kill(first.child.pid!, 'SIGKILL'); // at once: no timer tick of the old 1 s flush in between
      await first.exited;
      const seen = Math.max(...ws.events.filter((e) => e.event === 'runs/progress').map((e) => (e.payload as { step: number }).step));
      await until(() => strays.every((p) => !alive(p)), 10_000, 'the runner to end (parent-death watchdog)');

      const second = await spawnServe(dataDir);
      serves.push(second);
      const ws2 = await WsClient.connect(second.origin, second.token);
      clients.push(ws2);
      const detail = await ws2.value<{ samples: { step: number }[] }>('runs/get', { id: runIds[0] });
      const [run] = (await ws2.value<{ runs: { id: string; status: string }[] }>('runs/list', {})).runs;
      console.log(`[sample-flush] killed after the event of step ${seen}: ${detail.samples.length} sample(s) stored`);
      expect(run).toMatchObject({ id: runIds[0], status: 'interrupted' });
      expect(detail.samples.map((s) => s.step)).toEqual(Array.from({ length: detail.samples.length }, (_, i) => i + 1));
      expect(detail.samples.length, 'every step a client saw is stored').toBeGreaterThanOrEqual(seen);
      await second.stop();
      expect(integrityCheck(dataDir)).toBe('ok');
    },
  );
});
