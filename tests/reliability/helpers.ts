// Shared by the reliability suite: a real `serve` process whose pid IS the server (so SIGKILL
// kills the server, not a tsx wrapper), a small WebSocket client of the contract, raw HTTP over
// net.connect (nothing normalises the request line), a seeded PRNG, and data-folder fingerprints
// (row counts + files) to prove a refused request wrote nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import type { WireResult } from '../../electron/contract';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const FAKE_PYTHON = path.join(import.meta.dirname, 'fixtures', 'fake-python');

export const tmpDir = (prefix = 'os-rel-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

export interface ServeProcess {
  url: string;
  origin: string;
  token: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code/signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** `node --import tsx electron/server/cli-entry.ts`: one process, so its pid is the server's. */
export async function spawnServe(dataDir: string, env: NodeJS.ProcessEnv = {}, extraArgs: string[] = []): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'electron/server/cli-entry.ts', '--port', '0', '--data-dir', dataDir, ...extraArgs],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL in 30 s:\n${output}`)), 30_000);
    const check = () => {
      const match = output.match(/Open: (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}):\n${output}`));
    });
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    port: Number(parsed.port),
    dataDir,
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Received {
  event: string;
  payload: unknown;
}

/** The contract over a real WebSocket: request/answer by id, every event kept in order. */
export class WsClient {
  readonly events: Received[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, (r: WireResult<unknown>) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { id?: number; result?: WireResult<unknown>; event?: string; payload?: unknown };
      if (msg.event) this.events.push({ event: msg.event, payload: msg.payload });
      else {
        // Answers to frames without a usable id come back with id null: key -1.
        const key = typeof msg.id === 'number' ? msg.id : -1;
        this.pending.get(key)?.(msg.result!);
        this.pending.delete(key);
      }
    });
    ws.on('close', () => {
      for (const resolve of this.pending.values()) resolve({ ok: false, error: { code: 'closed', message: 'socket closed' } });
      this.pending.clear();
    });
  }

  static connect(origin: string, token: string, headers: Record<string, string> = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${origin.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`, {
        headers: { Origin: origin, ...headers },
      });
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a raw text frame (anything: broken JSON, huge payloads) and waits for the answer to `id`. */
  sendRaw(text: string | Buffer, id: number, timeoutMs = 15_000): Promise<WireResult<unknown>> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, error: { code: 'timeout', message: `no answer in ${timeoutMs} ms` } });
      }, timeoutMs);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.ws.send(text);
    });
  }

  request(channel: string, payload: unknown, timeoutMs?: number): Promise<WireResult<unknown>> {
    const id = this.nextId++;
    return this.sendRaw(JSON.stringify({ id, channel, payload }), id, timeoutMs);
  }

  async value<T>(channel: string, payload: unknown, timeoutMs?: number): Promise<T> {
    const r = await this.request(channel, payload, timeoutMs);
    if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`);
    return r.value as T;
  }

  /** Waits until an event matching `pred` has arrived (already or later). */
  async waitEvent(pred: (e: Received) => boolean, timeoutMs = 120_000): Promise<Received> {
    const started = Date.now();
    for (;;) {
      const found = this.events.find(pred);
      if (found) return found;
      if (!this.open) throw new Error('socket closed while waiting for an event');
      if (Date.now() - started > timeoutMs)
        throw new Error(`no matching event in ${timeoutMs} ms (got ${this.events.map((e) => e.event).join(', ')})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.ws.terminate();
  }
}

/** One raw HTTP exchange: the request bytes go out exactly as written. */
export function rawHttp(port: number, request: string, timeoutMs = 5000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(
      () => (socket.destroy(), reject(new Error(`raw HTTP timed out: ${JSON.stringify(request.slice(0, 80))}`))),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(request));
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text });
    });
  });
}

/** Seeded PRNG (mulberry32): a failing fuzz case reproduces with RELIABILITY_SEED=<printed seed>. */
export function seededRandom(label: string): { seed: number; next(): number; int(n: number): number; pick<T>(xs: readonly T[]): T } {
  const seed = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);
  console.log(`[${label}] seed ${seed} (reproduce with RELIABILITY_SEED=${seed})`);
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

/** `PRAGMA integrity_check` on the data folder's history.db (read-only open). */
export function integrityCheck(dataDir: string): string {
  const db = new DatabaseSync(path.join(dataDir, 'history.db'), { readOnly: true });
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

/** Row count of every table of history.db. */
export function rowCounts(dataDir: string): Record<string, number> {
  const file = path.join(dataDir, 'history.db');
  if (!fs.existsSync(file)) return {};
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    return Object.fromEntries(tables.map((t) => [t.name, (db.prepare(`SELECT COUNT(*) AS n FROM "${t.name}"`).get() as { n: number }).n]));
  } finally {
    db.close();
  }
}

/** Every file under the data folder except SQLite's own (WAL/SHM change on reads) with its size. */
export function fileList(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/history\.db(-wal|-shm)?$/.test(e.name)) out.push(`${path.relative(dir, p)}:${fs.statSync(p).size}`);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

export async function until(pred: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await pred())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first process under serve whose command line matches `runner` (the fake runner, bench.py…), or null. */
export function runnerPid(serve: ServeProcess, runner: RegExp): number | null {
  for (const pid of descendants(serve.child.pid!)) {
    try {
      if (runner.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) return pid;
    } catch {
      // gone
    }
  }
  return null;
}

/** Pids of the children of `pid` (from /proc), recursively. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry), ...descendants(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A minimal valid sweep of the tiny model (one run). */
export function tinySweep(python: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1, searchMicroBatch: false },
    strategies: ['zero3-offload'],
    steps: 4,
    warmup: 1,
    python,
    ...extra,
  };
}

export interface TrackedServes {
  /** Serve processes to stop after each test (with the processes below them). */
  started: ServeProcess[];
  /** WebSocket clients to close after each test. */
  clients: WsClient[];
  /** Pids outside any serve (a runner left behind on purpose) to SIGKILL after each test. */
  strays: number[];
  /** A serve on `dataDir` (env added to this process's), tracked, with a connected client. */
  serveOn(dataDir: string, env?: NodeJS.ProcessEnv): Promise<{ serve: ServeProcess; ws: WsClient }>;
  /** A new client of `serve`, tracked. */
  connect(serve: ServeProcess): Promise<WsClient>;
}

/**
 * The serves, clients and stray pids a test file starts, ended after each of its tests (it
 * registers the `afterEach`): only the processes the tests started — each serve, the runners
 * below it (listed before it stops), and the strays named — never anything by name.
 */
export function trackedServes(): TrackedServes {
  const tracked: TrackedServes = {
    started: [],
    clients: [],
    strays: [],
    async serveOn(dataDir, env = {}) {
      const serve = await spawnServe(dataDir, env);
      tracked.started.push(serve);
      return { serve, ws: await tracked.connect(serve) };
    },
    async connect(serve) {
      const ws = await WsClient.connect(serve.origin, serve.token);
      tracked.clients.push(ws);
      return ws;
    },
  };
  afterEach(async () => {
    tracked.clients.splice(0).forEach((c) => c.close());
    for (const s of tracked.started.splice(0)) {
      const kids = s.child.pid ? descendants(s.child.pid) : [];
      await s.stop();
      for (const pid of kids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    for (const pid of tracked.strays.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return tracked;
}

/** `node --import tsx ARGS` from the repository root: its exit code, stdout and stderr together (out), and stdout alone. */
export function node(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (d) => ((out += d), (stdout += d)));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, out, stdout })));
  });
}
