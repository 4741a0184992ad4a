// Starts a real `serve` process on a free loopback port with a fresh data folder and returns its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

export interface ServeHandle {
  url: string; // with ?token=
  origin: string;
  token: string;
  dataDir: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export async function startServe(
  extraArgs: string[] = [],
  dataDir?: string,
  options: { bundle?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<ServeHandle> {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'offload-studio-e2e-'));
  const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
  // From source through tsx (what `npm run serve` runs), or the plain-Node bundle scripts/build.mjs writes.
  const [file, entry] = options.bundle ? [process.execPath, 'dist/server/serve.mjs'] : [tsx, 'electron/server/cli-entry.ts'];
  const child = spawn(file, [entry, '--port', '0', '--data-dir', dir, ...extraArgs], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
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
    child.on('exit', (code) => reject(new Error(`serve exited (${code}):\n${output}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    dataDir: dir,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One request over serve's WebSocket, as the page sends it (token, same Origin); its value, or throws with the error. */
export async function invokeOverServe<T>(serve: Pick<ServeHandle, 'origin' | 'token'>, channel: string, payload: unknown): Promise<T> {
  const ws = new WebSocket(`${serve.origin.replace('http', 'ws')}/ws?token=${serve.token}`, { headers: { Origin: serve.origin } });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const reply = await new Promise<{ result: { ok: boolean; value?: T; error?: unknown } }>((resolve) => {
    ws.on('message', (d) => {
      const m = JSON.parse(String(d));
      if (m.id === 1) resolve(m);
    });
    ws.send(JSON.stringify({ id: 1, channel, payload }));
  });
  ws.close();
  if (!reply.result.ok) throw new Error(`${channel}: ${JSON.stringify(reply.result.error)}`);
  return reply.result.value as T;
}
