// WebSocket backpressure and probe concurrency. A client that stopped reading while
// sending small requests grew serve to a V8 heap OOM in ~6 s (1 MB runs/list answers); 2000
// pipelined requests crashed it while reading; 200 environment/probe requests started 201
// interpreters. Reproduced against a real serve; the stalled-client and probe tests failed on the
// code before the fix (the socket was never closed; 40 probes ran at once).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, rawHttp, repoRoot, spawnServe, tmpDir, until, type ServeProcess } from './helpers';

const NOTES = 'n'.repeat(4000);

/** A runs file of `count` finished runs, each with 4 KB of notes (runs/list answers of ~5 MB). */
function bigRunsFile(count: number) {
  const runs = Array.from({ length: count }, (_, i) => ({
    run: {
      id: `r-big-${i}`,
      created_at: '2026-12-01T00:00:00.000Z',
      status: 'completed',
      model: 'tiny-llama',
      strategy: 'zero3-offload',
      engine: 'deepspeed',
      repeat_index: 0,
      tags: '[]',
      notes: NOTES,
      tflops_per_gpu: 1.5,
      step_seconds: 0.5,
      steps: 1,
      warmup: 1,
    },
    details: null,
    snapshot: null,
    samples: { columns: ['step', 'warmup', 'step_seconds'], rows: [[1, 1, 0.6]] },
  }));
  return { format: 'offload-studio/runs', version: 1, schemaVersion: 3, exportedAt: '2026-12-01T00:00:00.000Z', source: null, runs };
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

let serve: ServeProcess;
beforeAll(async () => {
  const dir = tmpDir('os-bp-');
  const dataDir = path.join(dir, 'data');
  const file = path.join(dir, 'big.runs.json');
  fs.writeFileSync(file, JSON.stringify(bigRunsFile(1000)));
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'electron/cli/main.ts', 'import-runs', file, '--data-dir', dataDir], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (c) => (clearTimeout(timer), resolve(c)));
  });
  expect(code).toBe(0);
  serve = await spawnServe(dataDir);
}, 120_000);
afterAll(async () => serve?.stop());

async function stillUp(): Promise<void> {
  expect(serve.child.exitCode, serve.output()).toBeNull();
  expect(
    (await rawHttp(serve.port, `GET /healthz?token=${serve.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).status,
  ).toBe(200);
  const c = await WsClient.connect(serve.origin, serve.token);
  expect((await c.request('app/info', {})).ok).toBe(true);
  c.close();
}

describe('a WebSocket client cannot grow serve without bound', () => {
  it(
    'a client that stops reading while sending 120 runs/list requests (~5 MB answers) is disconnected; serve stays up and small',
    { timeout: 120_000 },
    async () => {
      const before = rssMiB(serve.child.pid!);
      const ws = new WebSocket(`${serve.origin.replace(/^http/, 'ws')}/ws?token=${serve.token}`, { headers: { Origin: serve.origin } });
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      let closed = false;
      ws.on('close', () => (closed = true));
      ws.on('error', () => (closed = true));
      ws.pause(); // stops reading: answers pile up on the server's side
      for (let id = 1; id <= 120; id++) ws.send(JSON.stringify({ id, channel: 'runs/list', payload: {} }));
      let peak = before;
      // The server must drop this socket; a ping write notices the close while reads are paused.
      await until(
        () => {
          peak = Math.max(peak, rssMiB(serve.child.pid!));
          if (!closed) ws.ping();
          return closed;
        },
        60_000,
        'serve to close the socket of a client that does not read',
      );
      expect(peak - before, `serve grew from ${before} MiB to ${peak} MiB`).toBeLessThan(400);
      ws.terminate();
      await stillUp();
    },
  );

  it('2000 pipelined requests from a client that reads: every one answered, serve stays up', { timeout: 180_000 }, async () => {
    const c = await WsClient.connect(serve.origin, serve.token);
    try {
      const answers = await Promise.all(Array.from({ length: 2000 }, () => c.request('runs/list', { limit: 5 }, 150_000)));
      expect(
        answers
          .filter((a) => !a.ok)
          .map((a) => (a.ok ? '' : a.error.message))
          .slice(0, 3),
      ).toEqual([]);
      expect((answers[1999] as { ok: true; value: { runs: unknown[] } }).value.runs).toHaveLength(5);
    } finally {
      c.close();
    }
    await stillUp();
  });
});

describe('environment/probe runs a bounded number of interpreters', () => {
  it(
    '40 probes of 40 slow interpreters at once: at most 2 run together, the rest wait or are refused busy; serve stays up',
    { timeout: 120_000 },
    async () => {
      const dir = tmpDir('os-bp-probe-');
      const source = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'slow-python'));
      const paths = Array.from({ length: 40 }, (_, i) => path.join(dir, `python-${i}`));
      for (const p of paths) fs.writeFileSync(p, source, { mode: 0o755 });
      // Two sockets (each may hold 16 requests in flight), so the probe queue overflows too.
      const c = await WsClient.connect(serve.origin, serve.token);
      const d = await WsClient.connect(serve.origin, serve.token);
      try {
        const answers = await Promise.all(paths.map((p, i) => (i % 2 ? d : c).request('environment/probe', { path: p }, 100_000)));
        const counts = fs.readFileSync(path.join(dir, 'counts'), 'utf8').trim().split('\n').map(Number);
        expect(Math.max(...counts), `interpreters at once: ${counts.join(',')}`).toBeLessThanOrEqual(2);
        const busy = answers.filter((a) => !a.ok);
        for (const b of busy)
          if (!b.ok)
            expect(b.error.message).toMatch(/Too many interpreter probes at once \(2 running, 16 waiting\); wait for their answers/);
        expect(answers.filter((a) => a.ok).length).toBeGreaterThanOrEqual(18);
        expect(busy.length).toBeGreaterThan(0);
      } finally {
        c.close();
        d.close();
      }
      await stillUp();
    },
  );
});
