// Headless server under a bounded loopback load: 50 WebSocket clients for 20 s against a serve
// started in this process (startServer + createBackend) on a store seeded with 2,000 synthetic
// runs. Half read history (`runs/list` with filters) in a closed loop; half only listen while the
// backend emits a known number of `runs/progress` events, each counted at every client.
// Figures: server-p99-ms (request latency), server-dropped-events (expected − received, summed).
// Bounded: a fixed number of clients, a fixed duration, loopback only (127.0.0.1).
//   npx tsx bench/server-load.ts [--clients 50] [--seconds 20]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { createBackend } from '../electron/services/backend';
import { startServer } from '../electron/server';
import { findRendererDir } from '../electron/server/serve';
import { generate } from './history-synthetic';
import { reportFigure } from './figure';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CLIENTS = arg('clients', 50);
const SECONDS = arg('seconds', 20);
const EVENTS = 2000; // runs/progress events emitted over the run

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

function connect(origin: string, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/ws?token=${token}`, { headers: { Origin: origin } });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-bench-load-'));
  const seeded = generate(dataDir, { runs: 2000, samplesPerRun: 10 });
  const backend = createBackend({ dataDir, transport: 'server' });
  const server = await startServer({ backend, rendererDir: findRendererDir(), host: '127.0.0.1', port: 0 });
  const origin = server.origin;
  if (!origin.startsWith('http://127.0.0.1:')) throw new Error(`refusing to load a non-loopback server: ${origin}`);

  const readers = Math.ceil(CLIENTS / 2);
  const sockets = await Promise.all(Array.from({ length: CLIENTS }, () => connect(origin, server.token)));
  const received = sockets.map(() => 0);
  sockets.forEach((ws, i) => ws.on('message', (d) => {
    if (d.toString().startsWith('{"event":"runs/progress"')) received[i]++;
  }));

  const latencies: number[] = [];
  let errors = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const filters = [{ limit: 50 }, { strategy: 'superoffload', limit: 100 }, { model: 'qwen3-14b', status: 'completed', limit: 200 }, { tag: 'synthetic-bench', limit: 20, offset: 500 }];
  const reader = async (ws: WebSocket, k: number) => {
    let id = 0;
    const pending = new Map<number, (ok: boolean) => void>();
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { id?: number; result?: { ok: boolean } };
      if (typeof m.id === 'number') pending.get(m.id)?.(m.result?.ok === true);
    });
    while (Date.now() < deadline) {
      const n = ++id;
      const t0 = performance.now();
      const ok = await new Promise<boolean>((resolve) => {
        pending.set(n, resolve);
        ws.send(JSON.stringify({ id: n, channel: 'runs/list', payload: filters[(k + n) % filters.length] }));
      });
      pending.delete(n);
      latencies.push(performance.now() - t0);
      if (!ok) errors++;
    }
  };
  // The event source: the backend's own emit (what a sweep's progress goes through), spread over the run.
  const emitter = (async () => {
    const every = (SECONDS * 1000 * 0.8) / EVENTS;
    for (let i = 0; i < EVENTS; i++) {
      backend.emit('runs/progress', {
        sweepId: 'sw-bench', runId: 'r-bench', runIndex: 0, runCount: 1, strategy: 'zero3-offload', repeatIndex: 0,
        step: i + 1, total: EVENTS, warmup: false, stepSeconds: 0.1, tflopsPerGpu: 1, tokensPerSecond: 100, loss: 2,
        gpuAllocatedBytes: null, gpuReservedBytes: null, gpuPeakBytes: null, hostRssBytes: 1e8, elapsedSeconds: i * 0.1, etaSeconds: 1,
      });
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, every * 10));
    }
  })();
  await Promise.all([...sockets.slice(0, readers).map((ws, k) => reader(ws, k)), emitter]);
  await new Promise((r) => setTimeout(r, 1000)); // let the last events arrive
  const listeners = sockets.length; // every client (readers too) is subscribed to every event
  const dropped = received.reduce((sum, n) => sum + (EVENTS - n), 0);
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  for (const ws of sockets) ws.terminate();
  await server.close();
  await backend.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const note = `${CLIENTS} clients (${readers} reading runs/list over ${seeded.runs} runs), ${SECONDS} s, ${latencies.length} requests, ${errors} errors, p50 ${p50.toFixed(1)} ms; ${EVENTS} events × ${listeners} clients`;
  reportFigure({ id: 'server-p99-ms', label: 'serve runs/list p99 latency under load', value: p99, unit: 'ms', goal: '< 250 ms', ok: p99 < 250 && errors === 0, note });
  reportFigure({ id: 'server-dropped-events', label: 'serve runs/progress events dropped under load', value: dropped, unit: 'events', goal: '= 0', ok: dropped === 0, note: `received per client: min ${Math.min(...received)}, max ${Math.max(...received)} of ${EVENTS}` });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
