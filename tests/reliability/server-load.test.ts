// The short version of bench/server-load.ts that CI runs: a real serve on a data
// folder of 300 runs, a live fake-runner sweep (301 steps of 0.01 s), 20 WebSocket clients of which
// 10 read `runs/list` with five filters in a closed loop. No latency is asserted (a 2-core CI box
// shares its cores with the clients): what is asserted is that nothing is lost or stale — every
// client gets every progress event, in step order; every answer is a valid page; and the pages
// kept between writes (history/index.ts) follow the run's transitions: after the sweep each
// filter's answer equals a fresh read of history.db through another connection.
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import type { RunFilter, RunSummary } from '../../electron/contract';
import { listRuns } from '../../electron/services/history/queries';
import { generate } from '../../bench/history-synthetic';
import { FAKE_PYTHON, tinySweep, tmpDir, trackedServes } from './helpers';

const { serveOn, connect } = trackedServes();

type Page = { runs: RunSummary[]; total: number };
type Progress = { sweepId: string; step: number };
type Status = { sweepId: string; runId: string; phase: string; status: string; sweepDone: boolean };

describe('20 clients on a live sweep, half reading history', () => {
  it(
    'every client gets every progress event in order; every runs/list answer is valid and none is stale after the sweep',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-load-');
      generate(dataDir, { runs: 300, samplesPerRun: 2, warmup: 1 });
      const { serve, ws: first } = await serveOn(dataDir, { FAKE_RUNNER_DELAY: '0.01' });
      const clients = [first];
      while (clients.length < 20) clients.push(await connect(serve));

      const filters: RunFilter[] = [
        { limit: 50 },
        { strategy: 'superoffload', limit: 100 },
        { model: 'qwen3-14b', status: 'completed', limit: 200 },
        { tag: 'synthetic-bench', limit: 20, offset: 100 },
        { model: 'tiny-llama', limit: 10 } /* only the sweep's run */,
      ];
      const { sweepId, runIds } = await first.value<{ sweepId: string; runIds: string[] }>(
        'runs/start',
        tinySweep(FAKE_PYTHON, { steps: 300, warmup: 1 }),
      );
      let done = false;
      const finished = first
        .waitEvent((e) => e.event === 'runs/status' && (e.payload as Status).sweepId === sweepId && (e.payload as Status).sweepDone, 90_000)
        .then((e) => {
          done = true;
          return e.payload as Status;
        });
      const latencies: number[] = [];
      const bad: string[] = [];
      let sawOurRunRunning = false;
      await Promise.all(
        clients.slice(0, 10).map(async (c, k) => {
          for (let n = 0; !done; n++) {
            const filter = filters[(k + n) % filters.length];
            const t0 = performance.now();
            const r = await c.request('runs/list', filter);
            latencies.push(performance.now() - t0);
            if (!r.ok) {
              bad.push(`${JSON.stringify(filter)}: ${r.error.code} ${r.error.message}`);
              continue;
            }
            const page = r.value as Page;
            if (!Array.isArray(page.runs) || page.runs.length > filter.limit! || page.total < page.runs.length)
              bad.push(`${JSON.stringify(filter)}: ${page.runs.length} runs, total ${page.total}`);
            if (filter.model === 'tiny-llama' && page.runs.some((run) => run.id === runIds[0] && run.status === 'running'))
              sawOurRunRunning = true;
          }
        }),
      );
      const end = await finished;
      expect(end.status).toBe('completed');
      expect(bad).toEqual([]);
      expect(sawOurRunRunning).toBe(true); // the page kept before the run started was not served on

      // 0 dropped: every client got steps 1..301 of this sweep, in order, once each.
      await new Promise((r) => setTimeout(r, 500));
      const steps = clients.map((c) =>
        c.events
          .filter((e) => e.event === 'runs/progress' && (e.payload as Progress).sweepId === sweepId)
          .map((e) => (e.payload as Progress).step),
      );
      const expected = Array.from({ length: 301 }, (_, i) => i + 1);
      for (const [i, got] of steps.entries()) expect(got, `client ${i}`).toEqual(expected);

      // Not stale: each filter's answer now equals a fresh read through another connection.
      const db = new DatabaseSync(path.join(dataDir, 'history.db'), { readOnly: true });
      try {
        for (const filter of filters)
          expect(await first.value<Page>('runs/list', filter), JSON.stringify(filter)).toEqual(
            JSON.parse(JSON.stringify(listRuns(db, filter))),
          );
      } finally {
        db.close();
      }
      expect((await first.value<Page>('runs/list', { model: 'tiny-llama', limit: 10 })).runs).toMatchObject([
        { id: runIds[0], status: 'completed' },
      ]);
      latencies.sort((a, b) => a - b);
      console.log(
        `[server-load] ${latencies.length} runs/list answers, p50 ${latencies[latencies.length >> 1]?.toFixed(1)} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]?.toFixed(1)} ms (not asserted)`,
      );
    },
  );
});
