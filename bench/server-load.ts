// The headless server under load during a live sweep. A real `serve` process
// (`node --import tsx electron/server/cli-entry.ts`, as the reliability suite starts it) on a
// data folder seeded with 2,000 synthetic runs runs a sweep of the fake runner (a real Python
// child speaking the JSON-lines protocol, FAKE_RUNNER_DELAY s per step). 200 WebSocket clients
// (this process; the server has its own) connect first; half read history (`runs/list` with four
// different filters) in a closed loop — a new request the moment the last answer arrives — for
// as long as the sweep runs; every client counts the `runs/progress` events it receives and
// checks they come in step order.
// Figures: server-p99-ms (runs/list round trip at the client: p50/p95/p99 in the note) and
// server-dropped-events (Σ over clients of steps stored − progress events received in order).
// The clients read only the head of each frame (the id, `"ok":true`, the step number) and parse
// every 50th answer whole to check it, so the client process is not what is measured.
// Bounded: a fixed number of clients, one sweep, loopback only (127.0.0.1).
//   npx tsx bench/server-load.ts [--clients 200] [--seconds 20] [--step-delay 0.01]
//   BENCH_SERVE_CPU_PROF=/tmp/prof npx tsx bench/server-load.ts   # + serve's CPU profile
import { spawn, spawnSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { generate } from './history-synthetic';
import { reportFigure } from './figure';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CLIENTS = arg('clients', 200);
const SECONDS = arg('seconds', 20);
const STEP_DELAY = arg('step-delay', 0.01); // seconds per fake-runner step (100 progress events/s nominal)
const STEPS = Math.max(10, Math.round(SECONDS / STEP_DELAY)); // measured steps; one warm-up step on top
// BENCH_ROOT / BENCH_SERVE_ENTRY: the checkout and a bundled serve (a machine without node_modules).
const repoRoot = process.env.BENCH_ROOT ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const serveEntry = process.env.BENCH_SERVE_ENTRY ? [process.env.BENCH_SERVE_ENTRY] : ['--import', 'tsx', 'electron/server/cli-entry.ts'];
const FAKE_PYTHON = path.join(repoRoot, 'tests', 'reliability', 'fixtures', 'fake-python');

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function startServe(dataDir: string) {
  // serve needs the built renderer (a fresh clone has none): build it as `npm run serve` would.
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'renderer', 'index.html'))) {
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('npm run build failed');
  }
  // BENCH_SERVE_CPU_PROF=DIR: serve writes a V8 CPU profile there when it stops (where its time goes).
  const profile = process.env.BENCH_SERVE_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SERVE_CPU_PROF] : [];
  const child = spawn(process.execPath, [...profile, ...serveEntry, '--port', '0', '--data-dir', dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FAKE_RUNNER_DELAY: String(STEP_DELAY) },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL in 60 s:\n${output}`)), 60_000);
    const check = () => {
      const m = output.match(/Open: (http:\/\/\S+)/);
      if (m) (clearTimeout(timer), resolve(new URL(m[1])));
    };
    child.stdout.on('data', check);
    void exited.then(() => (clearTimeout(timer), reject(new Error(`serve exited:\n${output}`))));
  });
  return {
    origin: url.origin,
    token: url.searchParams.get('token')!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Client {
  ws: WebSocket;
  /** Progress events received in step order (1, 2, 3, …), and any out of order or repeated. */
  inOrder: number;
  outOfOrder: number;
  answers: Map<number, (ok: boolean, text: Buffer) => void>;
}

function connect(
  origin: string,
  token: string,
  onStatus: (payload: { sweepDone: boolean; status: string; phase: string; runId: string }) => void,
): Promise<Client> {
  return new Promise((resolve, reject) => {
    // skipUTF8Validation: the client process shares this machine's two cores with serve; its own work is not the figure
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/ws?token=${token}`, {
      headers: { Origin: origin },
      skipUTF8Validation: true,
    });
    const client: Client = { ws, inOrder: 0, outOfOrder: 0, answers: new Map() };
    ws.on('message', (data: Buffer) => {
      const head = data.toString('latin1', 0, Math.min(data.length, 320));
      if (head.startsWith('{"event":"runs/progress"')) {
        const step = Number(/"step":(\d+)/.exec(head)?.[1]);
        if (step === client.inOrder + 1) client.inOrder++;
        else client.outOfOrder++;
      } else if (head.startsWith('{"event":"runs/status"')) {
        onStatus((JSON.parse(data.toString('utf8')) as { payload: never }).payload);
      } else if (head.startsWith('{"id":')) {
        const m = /^\{"id":(\d+),"result":\{"ok":(true|false)/.exec(head);
        if (m) client.answers.get(Number(m[1]))?.(m[2] === 'true', data);
      }
    });
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-bench-load-'));
  const seeded = generate(dataDir, { runs: 2000, samplesPerRun: 10 });
  const serve = await startServe(dataDir);
  if (!serve.origin.startsWith('http://127.0.0.1:')) throw new Error(`refusing to load a non-loopback server: ${serve.origin}`);

  let sweepDone = false;
  let runStatus = '';
  let runId = '';
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS; i++)
    clients.push(
      await connect(serve.origin, serve.token, (p) => {
        if (i !== 0) return;
        if (p.phase === 'finished') ((runStatus = p.status), (runId = p.runId));
        if (p.sweepDone) sweepDone = true;
      }),
    );
  let nextId = 1;
  const request = (c: Client, channel: string, payload: unknown) =>
    new Promise<{ ok: boolean; text: Buffer }>((resolve) => {
      const id = nextId++;
      c.answers.set(id, (ok, text) => (c.answers.delete(id), resolve({ ok, text })));
      c.ws.send(JSON.stringify({ id, channel, payload }));
    });

  const started = await request(clients[0], 'runs/start', {
    workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1, searchMicroBatch: false },
    strategies: ['zero3-offload'],
    steps: STEPS,
    warmup: 1,
    python: FAKE_PYTHON,
  });
  if (!started.ok) throw new Error(`runs/start refused: ${started.text.toString()}`);

  const readers = Math.ceil(CLIENTS / 2);
  const filters = [
    { limit: 50 },
    { strategy: 'superoffload', limit: 100 },
    { model: 'qwen3-14b', status: 'completed', limit: 200 },
    { tag: 'synthetic-bench', limit: 20, offset: 500 },
  ];
  const latencies: number[] = [];
  let errors = 0;
  let checked = 0;
  const clientLag = monitorEventLoopDelay({ resolution: 5 });
  clientLag.enable();
  const t0 = Date.now();
  const cap = t0 + Math.max(3 * SECONDS, 60) * 1000; // a sweep that never ends still ends the bench
  const reader = async (c: Client, k: number) => {
    for (let n = 0; !sweepDone && Date.now() < cap; n++) {
      const filter = filters[(k + n) % filters.length];
      const start = performance.now();
      const { ok, text } = await request(c, 'runs/list', filter);
      latencies.push(performance.now() - start);
      if (!ok) errors++;
      else if (n % 50 === 0) {
        // Whole-answer check: a page of at most `limit` runs and a total.
        const value = (JSON.parse(text.toString('utf8')) as { result: { value: { runs: unknown[]; total: number } } }).result.value;
        if (!Array.isArray(value.runs) || value.runs.length > filter.limit || !(value.total >= value.runs.length)) errors++;
        checked++;
      }
    }
  };
  await Promise.all(clients.slice(0, readers).map((c, k) => reader(c, k)));
  const sweepSeconds = (Date.now() - t0) / 1000;
  clientLag.disable();
  await new Promise((r) => setTimeout(r, 1000)); // the last events in flight
  const detail = await request(clients[0], 'runs/get', { id: runId });
  const stored = detail.ok
    ? (JSON.parse(detail.text.toString('utf8')) as { result: { value: { samples: unknown[] } } }).result.value.samples.length
    : NaN;
  const expected = STEPS + 1; // warm-up step included in both the samples and the progress events
  const dropped = clients.reduce((sum, c) => sum + (expected - c.inOrder), 0);
  const outOfOrder = clients.reduce((sum, c) => sum + c.outOfOrder, 0);
  const received = clients.map((c) => c.inOrder);
  for (const c of clients) c.ws.terminate();
  await serve.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });

  latencies.sort((a, b) => a - b);
  const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(latencies, p));
  const fine = sweepDone && runStatus === 'completed' && stored === expected;
  const note = `${CLIENTS} clients (${readers} reading runs/list with 4 filters over ${seeded.runs} runs, closed loop), live fake-runner sweep of ${expected} steps (${STEP_DELAY} s each) in ${sweepSeconds.toFixed(1)} s, run ${runStatus || 'not finished'}; ${latencies.length} requests (${(latencies.length / sweepSeconds).toFixed(0)}/s), ${errors} errors, ${checked} answers checked whole; p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms; the clients' own event-loop delay p99 ${(clientLag.percentile(99) / 1e6).toFixed(1)} ms`;
  reportFigure({
    id: 'server-p99-ms',
    label: `serve runs/list p99 latency, ${CLIENTS} clients on a live sweep`,
    value: p99,
    unit: 'ms',
    goal: '< 50 ms',
    ok: p99 < 50 && errors === 0 && fine,
    note,
  });
  reportFigure({
    id: 'server-dropped-events',
    label: 'serve runs/progress events dropped under load',
    value: dropped,
    unit: 'events',
    goal: '= 0',
    ok: dropped === 0 && outOfOrder === 0 && fine,
    note: `${CLIENTS} clients × ${expected} steps (${stored} samples stored); received in order per client: min ${Math.min(...received)}, max ${Math.max(...received)}; out of order ${outOfOrder}`,
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
