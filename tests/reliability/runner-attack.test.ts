// A hostile or buggy runner must not kill `serve`. Reproduced against a real serve with
// a hostile runner (tests/reliability/fixtures/hostile_runner.py, a real child speaking the
// protocol): one step line with stepSeconds 1e305 made the sweep's ETA NaN and the event's
// validation threw inside the stdout handler; a runner printing more steps than the spec stored
// every one; a run with 300,000 stored samples overflowed the stack in the CSV export
// (Math.max(...samples)). Every test failed on the code before its fix.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { WsClient, rawHttp, seededRandom, tinySweep, tmpDir, trackedServes, type ServeProcess } from './helpers';

const HOSTILE_PYTHON = path.join(import.meta.dirname, 'fixtures', 'hostile-python');

const { serveOn } = trackedServes();

async function stillUp(s: ServeProcess): Promise<void> {
  expect(s.child.exitCode, s.output()).toBeNull();
  expect((await rawHttp(s.port, `GET /healthz?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).status).toBe(
    200,
  );
}

type Status = { sweepId: string; runId: string; phase: string; status: string; sweepDone: boolean };

async function runToEnd(ws: WsClient, extra: Record<string, unknown>): Promise<{ runId: string; end: Status }> {
  const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(HOSTILE_PYTHON, extra));
  const end = await ws.waitEvent(
    (e) => e.event === 'runs/status' && (e.payload as Status).sweepId === sweepId && (e.payload as Status).sweepDone,
    60_000,
  );
  return { runId: runIds[0], end: end.payload as Status };
}

describe('a hostile runner cannot take serve down', () => {
  it(
    'a step line with stepSeconds 1e305 in a 100,000-step run: serve stays up, the ETA is null (not NaN), the run completes',
    { timeout: 90_000 },
    async () => {
      const { serve, ws } = await serveOn(tmpDir('os-hostile-eta-'), { HOSTILE_MODE: 'eta-overflow' });
      const { runId, end } = await runToEnd(ws, { steps: 100_000, warmup: 1 });
      expect(end.status, serve.output()).toBe('completed');
      const progress = ws.events
        .filter((e) => e.event === 'runs/progress')
        .map((e) => e.payload as { step: number; etaSeconds: number | null });
      expect(progress.map((p) => p.step)).toEqual([1, 2, 3]);
      for (const p of progress) expect(p.etaSeconds === null || Number.isFinite(p.etaSeconds)).toBe(true);
      const detail = await ws.value<{ samples: { step: number }[] }>('runs/get', { id: runId });
      expect(detail.samples.map((s) => s.step)).toEqual([1, 2, 3]);
      await stillUp(serve);
    },
  );

  it(
    'a runner printing 3,000 steps for a 5-step spec: only 5 samples are stored and a line in the log says why',
    { timeout: 90_000 },
    async () => {
      const { serve, ws } = await serveOn(tmpDir('os-hostile-flood-'), { HOSTILE_MODE: 'flood', HOSTILE_STEPS: '3000' });
      const { runId, end } = await runToEnd(ws, { steps: 4, warmup: 1 });
      expect(end.status, serve.output()).toBe('completed');
      const detail = await ws.value<{ samples: { step: number }[]; logTail: string[] }>('runs/get', { id: runId });
      expect(detail.samples.map((s) => s.step)).toEqual([1, 2, 3, 4, 5]);
      // Said once, in the run's log file and in the live log.
      const note = /the runner reported more steps than the 5 this run asked for; steps after 5 were not stored/;
      expect(detail.logTail.filter((l) => note.test(l))).toHaveLength(1);
      expect(ws.events.some((e) => e.event === 'runs/log' && (e.payload as { lines: string[] }).lines.some((l) => note.test(l)))).toBe(
        true,
      );
      // Progress events stop at the spec's total as well (no flood to every client).
      expect(ws.events.filter((e) => e.event === 'runs/progress').length).toBeLessThanOrEqual(5);
      await stillUp(serve);
    },
  );

  it('a stored run with 300,000 samples exports as CSV (no Math.max(...spread) stack overflow)', { timeout: 120_000 }, async () => {
    const dataDir = tmpDir('os-hostile-csv-');
    const { serve, ws } = await serveOn(dataDir, { HOSTILE_MODE: 'flood', HOSTILE_STEPS: '3' });
    const { runId } = await runToEnd(ws, { steps: 2, warmup: 1 });
    ws.close();
    await serve.stop();
    // What an older version let a flooding runner store (or a hand-made database): 300,000 samples.
    const db = new DatabaseSync(path.join(dataDir, 'history.db'));
    db.exec('BEGIN');
    const insert = db.prepare(
      'INSERT OR REPLACE INTO samples (run_id, step, warmup, step_seconds, tflops_per_gpu, tokens_per_second, loss, gpu_allocated, gpu_reserved, gpu_peak, host_rss) VALUES (?, ?, 0, 0.01, 0.5, 3200, 2, NULL, NULL, ?, ?)',
    );
    for (let i = 1; i <= 300_000; i++) insert.run(runId, i, 1000 + i, 100_000_000 + i);
    db.exec('COMMIT');
    db.close();
    const again = await serveOn(dataDir);
    const out = path.join(tmpDir('os-hostile-csv-out-'), 'runs.csv');
    const r = await again.ws.value<{ path: string; extraPaths?: string[] }>(
      'reports/export',
      { runIds: [runId], format: 'csv', path: out, includeSamples: true },
      90_000,
    );
    expect(r.path).toBe(out);
    const csv = fs.readFileSync(out, 'utf8');
    expect(csv).toContain(runId);
    expect(csv).toMatch(/,300000,/); // measured steps: every stored sample was read
    await stillUp(again.serve);
  });
});

describe('a fuzz of runner lines against a real serve', () => {
  it(
    '600 random step/memory/hello/config lines with hostile values (seeded): serve stays up, every event valid, the run ends and reads back',
    { timeout: 120_000 },
    async () => {
      const rnd = seededRandom('runner lines');
      const { serve, ws } = await serveOn(tmpDir('os-hostile-fuzz-'), {
        HOSTILE_MODE: 'fuzz',
        HOSTILE_SEED: String(rnd.seed),
        HOSTILE_LINES: '600',
      });
      const { runId, end } = await runToEnd(ws, { steps: 100_000, warmup: 1 });
      expect(['completed', 'failed'], `seed ${rnd.seed}\n${serve.output()}`).toContain(end.status);
      for (const e of ws.events.filter((x) => x.event === 'runs/progress')) {
        const p = e.payload as { step: number; total: number; etaSeconds: number | null; stepSeconds: number };
        expect(p.step, `seed ${rnd.seed}`).toBeLessThanOrEqual(p.total);
        expect(p.etaSeconds === null || Number.isFinite(p.etaSeconds), `seed ${rnd.seed}`).toBe(true);
      }
      const detail = await ws.value<{ samples: unknown[] }>('runs/get', { id: runId });
      expect(detail.samples.length).toBeLessThanOrEqual(100_001);
      expect((await ws.request('runs/list', {})).ok).toBe(true);
      expect((await ws.request('compare/runs', { ids: [runId] })).ok, `seed ${rnd.seed}`).toBe(true);
      const out = path.join(tmpDir('os-hostile-fuzz-out-'), 'r.csv');
      expect(
        (await ws.request('reports/export', { runIds: [runId], format: 'csv', path: out, includeSamples: true }, 60_000)).ok,
        `seed ${rnd.seed}`,
      ).toBe(true);
      await stillUp(serve);
    },
  );
});
