// The managed engine install: a fresh venv at <dataDir>/engine-venv.new, the steps of
// resources/engine/install-steps.json (bootstrap pip/setuptools/wheel, torch, then DeepSpeed
// without build isolation — the same sequence scripts/setup-engine-venv.sh runs) installed with
// pip (progress parsed from its output), then swapped into
// <dataDir>/engine-venv by rename only on success. A failure or a cancel removes the new folder
// and leaves the previous environment exactly as it was. pip runs in its own process group so
// cancel can stop pip and every build subprocess it started.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, readdir, readFile, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InstallProgress, InstallResult } from '../../contract';
import { appVenvDir, pythonIn } from './candidates';
import { parseVersionOutput } from './probe';
import { versionAtLeast, MIN_PYTHON } from './missing';
import { PipProgress, parsePipLine } from './pip-progress';
import { engineInstallPlan, markerText } from './install-steps';
import { engineRequirements } from './requirements';
import { run } from './run';

export interface InstallOptions {
  dataDir: string;
  /** Override the pinned list (tests install e.g. ['six'] instead of 4 GB of torch); the
   *  bootstrap step (pip, setuptools, wheel) still runs first. */
  requirements?: string[];
  /** Interpreter that creates the venv; default: python3 (then python) on PATH. */
  basePython?: string;
  /** Extra pip arguments (an index URL, --no-index --find-links for offline installs). */
  pipArgs?: string[];
  onProgress?: (progress: InstallProgress) => void;
  env?: NodeJS.ProcessEnv;
}

export interface InstallHandle {
  result: Promise<InstallResult>;
  /** Stops the install; false when it already finished. */
  cancel(): boolean;
}

const LOG_LINES = 60;

/** Written into a finished environment: which install sequence built it (see install-steps.json). */
export const MARKER_FILE = '.offload-studio-complete';

/** pip's words when it cannot reach the index (connection refused, DNS, proxy, TLS, timeouts). */
const NO_INDEX_PATTERNS = [
  /Failed to establish a new connection/i,
  /NewConnectionError/i,
  /Could not fetch URL/i,
  /Temporary failure in name resolution|Name or service not known|getaddrinfo failed/i,
  /ProxyError|Cannot connect to proxy/i,
  /SSLError|CERTIFICATE_VERIFY_FAILED/i,
  /Read timed out|ConnectTimeoutError/i,
  /Network is unreachable|Connection refused/i,
];

/** The index pip used, from its "Looking in indexes:" line; PyPI when it printed none. */
export function indexUrlFrom(log: string[]): string {
  for (const line of log) {
    const m = /Looking in indexes:\s+(\S+?),?$/.exec(line.trim()) ?? /Looking in indexes:\s+(\S+?),/.exec(line);
    if (m) return m[1];
  }
  return 'https://pypi.org/simple';
}

/** Whether anything answers HTTP at the index URL (any status), within a few seconds. */
export async function indexAnswers(url: string, timeoutMs = 4000): Promise<boolean> {
  try {
    await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A failure message that says what to do, from the tail of pip's output; null when nothing is
 * recognised. With retries off pip says only "No matching distribution … (from versions: none)"
 * when the index is down, so `indexReachable` (checked by the caller) tells the two apart.
 */
export function explainPipFailure(log: string[], indexReachable: boolean | null = null): string | null {
  const text = log.join('\n');
  const noVersions = /from versions: none/.test(text);
  if (NO_INDEX_PATTERNS.some((re) => re.test(text)) || (noVersions && indexReachable === false)) {
    const url = indexUrlFrom(log);
    return (
      `pip could not reach the package index${url ? ` (${url})` : ''}. Check the network connection or proxy ` +
      '(HTTPS_PROXY), or point pip at a reachable index or a folder of wheels (PIP_INDEX_URL, or PIP_FIND_LINKS with --no-index), then try again'
    );
  }
  // The connection dropped half way through a download: pip 25+ resumes, then gives up with
  // "error: incomplete-download … not enough bytes were received (2.0 MB/4.0 MB) ╰─> URL: …";
  // older pips say "Connection broken: IncompleteRead" or find the cut wheel "invalid".
  const cut = /not enough bytes were received \(([^)]*)\)/.exec(text);
  if (cut || /incomplete-download|Connection broken|IncompleteRead|Connection interrupted while downloading|ProtocolError/i.test(text)) {
    const url = /URL:\s*(\S+)/.exec(text)?.[1] ?? /Downloading (\S+)/.exec(text)?.[1] ?? null;
    return (
      `the network connection dropped while pip was downloading${url ? ` ${url}` : ''}${cut ? ` (${cut[1]} received)` : ''}. ` +
      'Check the connection (or proxy) and try again; on a link that keeps dropping, download the wheels once elsewhere ' +
      '(pip download -r requirements.txt -d wheels) and install from that folder (PIP_FIND_LINKS=wheels with PIP_NO_INDEX=1)'
    );
  }
  const noDist = /No matching distribution found for (\S+)/.exec(text);
  if (noDist)
    return `pip found no distribution for ${noDist[1]} for this Python and platform. Use a Python from 3.10 to 3.13 (torch's supported range), or check the pinned version`;
  if (/invalid command 'bdist_wheel'/.test(text))
    return "the venv's setuptools cannot build wheels (bdist_wheel missing): the bootstrap step did not run or failed";
  if (/No space left on device|Errno 28|Disk quota exceeded/i.test(text)) return DISK_FULL;
  return null;
}

const DISK_FULL = 'the disk is full: free space (the engine environment needs about 6 GB) and try again';

/** Below this much free space on the data folder's disk, a failed install is said to be a full disk. */
const NEARLY_FULL_BYTES = 32 * 2 ** 20;

/**
 * A failure on a (nearly) full disk, said as such: `python -m venv` hides ensurepip's own
 * "No space left on device" behind "returned non-zero exit status 1". Measured before the
 * half-built folder is removed (which gives the space back).
 */
async function diskFullNow(dir: string): Promise<string | null> {
  const s = await statfs(dir).catch(() => null);
  if (!s) return null;
  const free = s.bavail * s.bsize;
  return free < NEARLY_FULL_BYTES
    ? `${diskHolding(dir)} (${(free / 2 ** 20).toFixed(1)} MB free)${DISK_FULL.slice('the disk is full'.length)}`
    : null;
}
const diskHolding = (dir: string) => `the disk holding ${dir} is full`;

/** Node's own file errors during the install (the marker, the path rewrite, the swap). */
function explainFileError(error: unknown, target: string): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return `${diskHolding(path.dirname(target))}${DISK_FULL.slice('the disk is full'.length)}`;
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
    return `${path.dirname(target)} cannot be written (${code}): choose a writable data folder (--data-dir) and try again`;
  return null;
}

/**
 * An install stopped between the two renames of the swap (the app killed there) leaves the
 * previous environment at `<target>.old` and nothing at `<target>`: put it back. Returns true
 * when it did. Run before anything looks for the app's environment or removes `.old`.
 */
export async function restoreInterruptedSwap(target: string): Promise<boolean> {
  const old = `${target}.old`;
  if ((await exists(target)) || !(await exists(path.join(old, MARKER_FILE)))) return false;
  await rename(old, target);
  return true;
}

class Cancelled extends Error {}

/** Point every text file in the venv's bin/ (shebangs, activate scripts) and pyvenv.cfg at the final folder. */
export async function rewriteVenvPaths(venv: string, from: string, to: string): Promise<void> {
  const bin = path.join(venv, process.platform === 'win32' ? 'Scripts' : 'bin');
  const files = [...(await readdir(bin).catch(() => [] as string[])).map((f) => path.join(bin, f)), path.join(venv, 'pyvenv.cfg')];
  await Promise.all(
    files.map(async (file) => {
      const info = await stat(file).catch(() => null);
      if (!info || !info.isFile() || info.size > 1024 * 1024) return;
      const buf = await readFile(file);
      if (buf.includes(0)) return; // binary
      const text = buf.toString('utf8');
      if (!text.includes(from)) return;
      await writeFile(file, text.split(from).join(to));
      await chmod(file, info.mode);
    }),
  );
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/**
 * Ends the processes still running the interpreter of a half-built environment (a crashed
 * install's pip and the build steps it started: `<staging>/bin/python …`). Linux (/proc) only;
 * returns their pids.
 */
export async function endLeftoverInstallers(staging: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const prefix = path.join(staging, 'bin') + path.sep;
  const ended: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (!argv.some((arg) => arg.startsWith(prefix))) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      ended.push(Number(entry));
    } catch {
      /* already gone */
    }
  }
  return ended;
}

export async function findBasePython(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  for (const name of ['python3', 'python']) {
    const r = await run(name, ['--version'], { timeoutMs: 10_000, env });
    if (r.code === 0 && versionAtLeast(parseVersionOutput(r.stdout + r.stderr), MIN_PYTHON)) return name;
  }
  return null;
}

export function startInstall(options: InstallOptions): InstallHandle {
  const started = performance.now();
  const target = appVenvDir(options.dataDir);
  const staging = `${target}.new`;
  const log: string[] = [];
  let child: ChildProcess | null = null;
  let cancelled = false;
  let finished = false;
  let requirements: string[] = [];

  const emit = (phase: InstallProgress['phase'], message: string, fraction: number | null) =>
    options.onProgress?.({ phase, message, fraction, elapsedMs: Math.round(performance.now() - started) });
  const keep = (line: string) => {
    log.push(line);
    if (log.length > LOG_LINES) log.shift();
  };

  /** One child, output streamed line by line; rejects on a non-zero exit or a cancel. */
  const step = (file: string, args: string[], onLine: (line: string) => void, stepEnv: Record<string, string> = {}) =>
    new Promise<void>((resolve, reject) => {
      if (cancelled) return reject(new Cancelled());
      const p = spawn(file, args, {
        shell: false,
        detached: process.platform !== 'win32', // its own process group: cancel kills pip's children too
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...(options.env ?? process.env), ...stepEnv, PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONUNBUFFERED: '1', PIP_NO_INPUT: '1' },
        windowsHide: true,
      });
      child = p;
      let buffer = '';
      const feed = (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const lines = buffer.split(/\r?\n|\r/);
        buffer = lines.pop() ?? '';
        for (const line of lines)
          if (line.trim()) {
            keep(line);
            onLine(line);
          }
      };
      p.stdout?.on('data', feed);
      p.stderr?.on('data', feed);
      p.on('error', (error) => reject(error));
      p.on('close', (code, signal) => {
        child = null;
        if (buffer.trim()) keep(buffer);
        if (cancelled) reject(new Cancelled());
        else if (code === 0) resolve();
        else reject(new Error(`${path.basename(file)} ${args.slice(0, 3).join(' ')} … exited with ${signal ?? `code ${code}`}`));
      });
    });

  const result = (async (): Promise<InstallResult> => {
    const done = async (ok: boolean, phase: InstallResult['phase'], message: string): Promise<InstallResult> => {
      finished = true;
      emit(phase, message, ok ? 1 : null);
      // After a failure the previous environment (if any) is still the one to use.
      const python = pythonIn(target)[0];
      return { ok, phase, message, venvPath: target, python: (await exists(python)) ? python : null, requirements, log: [...log] };
    };
    try {
      emit('prepare', 'Preparing the engine environment', 0);
      await restoreInterruptedSwap(target); // the previous environment, if a crash left it aside
      requirements = options.requirements ?? (await engineRequirements(options.env));
      const base = options.basePython ?? (await findBasePython(options.env));
      if (!base)
        throw new Error(
          `No Python ≥ ${MIN_PYTHON.join('.')} with the venv module found on PATH to create the environment; install python3 and python3-venv.`,
        );
      // A leftover from a crash: its pip may still be running (its own process group outlives
      // the app) and would keep writing into the folder this install is about to build in.
      await endLeftoverInstallers(staging);
      await rm(staging, { recursive: true, force: true });
      emit('venv', `Creating a virtual environment (${base} -m venv)`, 0.01);
      await step(base, ['-m', 'venv', staging], () => {});
      const python = pythonIn(staging)[0];

      // The steps from install-steps.json: bootstrap (pip/setuptools/wheel, so an sdist builds
      // without isolation on any Python 3.10–3.13 venv), torch, then the rest without isolation
      // (DeepSpeed's setup imports torch).
      const plan = await engineInstallPlan(requirements);
      const span = 0.9 / plan.steps.length;
      for (const [i, s] of plan.steps.entries()) {
        const tracker = new PipProgress([0.05 + i * span, 0.05 + (i + 1) * span]);
        emit('collecting', s.label, 0.05 + i * span);
        await step(
          python,
          ['-m', 'pip', 'install', '--progress-bar', 'off', ...(options.pipArgs ?? []), ...s.args],
          (line) => {
            const event = parsePipLine(line);
            if (event && event.phase !== 'failed') emit(event.phase, event.message, tracker.fraction(event));
          },
          s.env,
        );
      }

      emit('verifying', 'Checking the new environment', 0.96);
      const check = await run(python, ['-c', 'import sys; print(sys.version)'], { timeoutMs: 30_000 });
      if (check.code !== 0) throw new Error(`the new interpreter does not run: ${check.stderr.trim().split('\n').pop() ?? ''}`);
      if (cancelled) throw new Cancelled();

      await writeFile(path.join(staging, MARKER_FILE), `${markerText('app', plan.bootstrapVersion)}\n`);

      // Swap by rename: the old environment stays in place until the new one is complete.
      emit('swapping', 'Switching to the new environment', 0.98);
      await rewriteVenvPaths(staging, staging, target);
      const old = `${target}.old`;
      await rm(old, { recursive: true, force: true });
      const hadOld = await exists(target);
      if (hadOld) await rename(target, old);
      try {
        await rename(staging, target);
      } catch (error) {
        if (hadOld) await rename(old, target);
        throw error;
      }
      await rm(old, { recursive: true, force: true });
      return done(true, 'done', `Engine environment ready at ${target}`);
    } catch (error) {
      const full = await diskFullNow(path.dirname(target));
      await rm(staging, { recursive: true, force: true }).catch(() => {});
      if (error instanceof Cancelled || cancelled)
        return done(false, 'cancelled', 'Install cancelled; the previous environment is unchanged.');
      const tail = [...log];
      const reachable = tail.some((l) => /from versions: none/.test(l)) ? await indexAnswers(indexUrlFrom(tail)) : null;
      const why =
        explainPipFailure(tail, reachable) ??
        full ??
        explainFileError(error, target) ??
        (error instanceof Error ? error.message : String(error));
      return done(false, 'failed', `Install failed: ${why}. The previous environment is unchanged.`);
    }
  })();

  return {
    result,
    cancel() {
      if (finished || cancelled) return false;
      cancelled = true;
      const p = child as ChildProcess | null;
      if (p?.pid) {
        const kill = (signal: NodeJS.Signals) => {
          try {
            // Windows: no process groups; taskkill /T ends pip and the compilers it started.
            if (process.platform === 'win32')
              spawnSync('taskkill', ['/PID', String(p.pid), '/T', '/F'], { windowsHide: true, timeout: 10_000 });
            else process.kill(-(p.pid as number), signal); // the whole group: pip and its build steps
          } catch {
            /* already gone */
          }
        };
        kill('SIGTERM');
        const timer = setTimeout(() => kill('SIGKILL'), 3000);
        timer.unref();
        p.once('close', () => clearTimeout(timer));
      }
      return true;
    },
  };
}
