// Starting the headless server from command-line arguments (shared by `npm run serve` and `cli serve`).
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createBackend } from '../services/backend';
import { defaultDataDir } from '../services/backend/data-dir';
import { startServer } from './index';
import { killDescendants } from './children';

/** Longest graceful stop: the runner's cancel grace (10 s) plus time to store the end. */
const STOP_DEADLINE_MS = 20_000;
import { parseArgv, pressCounter, SERVE_FLAGS } from '../kernel';

export function findRendererDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [
    path.resolve(here, '../../dist/renderer'),
    path.resolve(here, '../renderer'),
    path.resolve(process.cwd(), 'dist/renderer'),
  ])
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
  return path.resolve(here, '../../dist/renderer');
}

/** Shortest session token accepted from the user (a random one is 32 characters). */
export const MIN_TOKEN_LENGTH = 32;

/** Largest token file read (a token is a line of at most a few hundred characters). */
const MAX_TOKEN_FILE_BYTES = 4096;

/**
 * A token from `--token-file FILE`: a regular file of at most 4 KiB, its first line. Nothing of it
 * reaches a process list. A file other users can read is refused: the token would be theirs too.
 */
export function tokenFromFile(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new Error(`--token-file ${file}: no such file (write one with: openssl rand -hex 32 > ${file} && chmod 600 ${file})`);
  }
  if (!stat.isFile()) throw new Error(`--token-file ${file}: not a regular file`);
  if (stat.size > MAX_TOKEN_FILE_BYTES)
    throw new Error(`--token-file ${file}: ${stat.size} bytes, a token file holds one line (at most ${MAX_TOKEN_FILE_BYTES} bytes)`);
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)
    throw new Error(`--token-file ${file}: readable by other users (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 ${file}`);
  const line = fs.readFileSync(file, 'utf8').split(/\r?\n/)[0].trim();
  if (!line) throw new Error(`--token-file ${file}: empty (write one with: openssl rand -hex 32 > ${file})`);
  return line;
}

/**
 * The session token the user chose: `--token-file FILE` or OFFLOAD_STUDIO_TOKEN (neither shown to
 * other users) or --token (shown in every process list — /proc/<pid>/cmdline of node and of the npm
 * and `sh -c` parents that started it: node's own is overwritten at once, the parents' cannot be, so
 * a warning says so). undefined: a random one. Short tokens are refused.
 */
function chosenToken(flag: unknown, fileFlag: unknown): string | undefined {
  const fromFlag = typeof flag === 'string' ? flag : undefined;
  const fromFile = typeof fileFlag === 'string' ? tokenFromFile(fileFlag) : undefined;
  if (fromFlag !== undefined && fromFile !== undefined) throw new Error('give the token once: --token-file or --token, not both');
  const token = fromFile ?? fromFlag ?? (process.env.OFFLOAD_STUDIO_TOKEN || undefined);
  if (token === undefined) return undefined;
  const source = fromFile !== undefined ? '--token-file' : fromFlag !== undefined ? '--token' : 'OFFLOAD_STUDIO_TOKEN';
  if (token.length < MIN_TOKEN_LENGTH || !/^[A-Za-z0-9._~-]+$/.test(token))
    throw new Error(
      `${source} must be at least ${MIN_TOKEN_LENGTH} characters of letters, digits and . _ ~ - (got ${token.length}): a short token can be guessed. Leave it out to get a random one, or make one with: openssl rand -hex 32`,
    );
  if (fromFlag !== undefined) {
    // Other users see a process's arguments; overwrite ours (Linux) and say what cannot be overwritten.
    process.title = 'offload-studio serve';
    console.error(
      'serve: warning: --token is visible to other users of this machine in the process list (node hides its own copy; `npm run serve` and its `sh -c` keep theirs for as long as serve runs). Use --token-file FILE (chmod 600) or the OFFLOAD_STUDIO_TOKEN environment variable instead.',
    );
  }
  return token;
}

/**
 * One `--allow-host NAME`: a further name the Host header may carry (a name in /etc/hosts or a
 * proxy's for this machine), on top of the loopback names and --host. A bare host name or IP
 * address, no port (the port is never checked), no wildcard: `Gpu-Box.` → `gpu-box`, `[::1]` → `::1`.
 */
export function allowHostName(raw: string): string {
  const name = raw
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name) && !/^[0-9a-f:.]*:[0-9a-f:.]*$/.test(name))
    throw new Error(
      `--allow-host ${JSON.stringify(raw)}: give a host name or IP address without port or wildcard (e.g. --allow-host gpu-box.lan)`,
    );
  return name;
}

export async function runServe(argv: string[]): Promise<void> {
  const { flags, lists } = parseArgv(argv, SERVE_FLAGS, 'serve');
  if (flags.help === true) {
    console.log(
      `usage: serve [--port N] [--host ADDR --allow-remote] [--allow-host NAME]... [--data-dir D] [--machine detect.json] [--token-file FILE | --token T] (32+ characters; OFFLOAD_STUDIO_TOKEN works too; --token shows in the process list)`,
    );
    return;
  }
  const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (!loopback && flags['allow-remote'] !== true)
    throw new Error(
      `refusing to bind ${host}: the server is loopback-only unless you pass --allow-remote (the token is still required). For a remote GPU box, prefer an SSH tunnel: ssh -L 8765:127.0.0.1:8765 host.`,
    );
  const allowedHosts = (lists?.['allow-host'] ?? []).map(allowHostName);
  const port = typeof flags.port === 'string' ? Number(flags.port) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${String(flags.port)}`);
  const dataDir = typeof flags['data-dir'] === 'string' ? path.resolve(flags['data-dir']) : defaultDataDir();
  const rendererDir = findRendererDir();
  if (!fs.existsSync(path.join(rendererDir, 'index.html')))
    throw new Error(`the renderer is not built (${rendererDir}/index.html missing). Run \`npm run build\` first.`);
  // --machine FILE: show and plan for a saved `detect --json` (e.g. a GPU box's) instead of this machine.
  const machineFile = typeof flags.machine === 'string' ? path.resolve(flags.machine) : undefined;
  const backend = createBackend({ dataDir, transport: 'server', machineFile });
  const server = await startServer({
    backend,
    rendererDir,
    host,
    port,
    token: chosenToken(flags.token, flags['token-file']),
    allowedHosts,
  });
  console.log(`Offload Studio (headless) — data folder ${dataDir}`);
  console.log(`Open: ${server.url}`);
  // Stop: close the server, let every service end its children (the running sweep is cancelled
  // and its rows made final, an install cancelled, Chromium closed), then SIGKILL whatever is still
  // below this process. A second press of Ctrl-C (not the same press relayed by npm: kernel's
  // pressCounter), or STOP_DEADLINE_MS, skips the waiting.
  let stopping = false;
  const press = pressCounter();
  const forceExit = (code: number) => {
    killDescendants();
    process.exit(code);
  };
  const stop = (signal: NodeJS.Signals) => {
    if (press(performance.now()) === null) return;
    if (stopping) return forceExit(130);
    stopping = true;
    console.log(`serve: ${signal}: stopping (runs in progress are cancelled)…`);
    setTimeout(() => forceExit(1), STOP_DEADLINE_MS).unref();
    void (async () => {
      await server.close().catch(() => undefined);
      await backend
        .close()
        .catch((error: unknown) => console.error(`serve: closing: ${error instanceof Error ? error.message : String(error)}`));
      forceExit(0);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // An SSH session drop sends SIGHUP: stop the same way (cancel the run, end its runner), never die mid-run.
  process.on('SIGHUP', stop);
}
