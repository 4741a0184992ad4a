// The managed engine install: a fresh venv at <dataDir>/engine-venv.new, pinned torch and
// deepspeed installed with pip (progress parsed from its output), then swapped into
// <dataDir>/engine-venv by rename only on success. A failure or a cancel removes the new folder
// and leaves the previous environment exactly as it was. pip runs in its own process group so
// cancel can stop pip and every build subprocess it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InstallProgress, InstallResult } from '../../contract';
import { appVenvDir, pythonIn } from './candidates';
import { parseVersionOutput } from './probe';
import { versionAtLeast, MIN_PYTHON } from './missing';
import { PipProgress, parsePipLine } from './pip-progress';
import { engineRequirements } from './requirements';
import { run } from './run';

export interface InstallOptions {
  dataDir: string;
  /** Override the pinned list (tests install e.g. ['six'] instead of 4 GB of torch). */
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
  return stat(p).then(() => true, () => false);
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
  const step = (file: string, args: string[], onLine: (line: string) => void) =>
    new Promise<void>((resolve, reject) => {
      if (cancelled) return reject(new Cancelled());
      const p = spawn(file, args, {
        shell: false,
        detached: process.platform !== 'win32', // its own process group: cancel kills pip's children too
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...(options.env ?? process.env), PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONUNBUFFERED: '1', PIP_NO_INPUT: '1' },
        windowsHide: true,
      });
      child = p;
      let buffer = '';
      const feed = (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const lines = buffer.split(/\r?\n|\r/);
        buffer = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) {
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
      requirements = options.requirements ?? (await engineRequirements());
      const base = options.basePython ?? (await findBasePython(options.env));
      if (!base) throw new Error(`No Python ≥ ${MIN_PYTHON.join('.')} with the venv module found on PATH to create the environment; install python3 and python3-venv.`);
      await rm(staging, { recursive: true, force: true }); // a leftover from a crash
      emit('venv', `Creating a virtual environment (${base} -m venv)`, 0.01);
      await step(base, ['-m', 'venv', staging], () => {});
      const python = pythonIn(staging)[0];

      // torch first: DeepSpeed's setup imports torch, so the rest installs without build isolation.
      const torch = requirements.filter((r) => /^torch\b(?![-_\w])/i.test(r));
      const rest = requirements.filter((r) => !torch.includes(r));
      const groups: { reqs: string[]; extra: string[]; span: [number, number] }[] = [];
      if (torch.length && rest.length) groups.push({ reqs: torch, extra: [], span: [0.05, 0.6] }, { reqs: rest, extra: ['--no-build-isolation'], span: [0.6, 0.95] });
      else groups.push({ reqs: requirements, extra: [], span: [0.05, 0.95] });
      for (const g of groups) {
        const tracker = new PipProgress(g.span);
        await step(python, ['-m', 'pip', 'install', '--progress-bar', 'off', ...g.extra, ...(options.pipArgs ?? []), ...g.reqs], (line) => {
          const event = parsePipLine(line);
          if (event && event.phase !== 'failed') emit(event.phase, event.message, tracker.fraction(event));
        });
      }

      emit('verifying', 'Checking the new environment', 0.96);
      const check = await run(python, ['-c', 'import sys; print(sys.version)'], { timeoutMs: 30_000 });
      if (check.code !== 0) throw new Error(`the new interpreter does not run: ${check.stderr.trim().split('\n').pop() ?? ''}`);
      if (cancelled) throw new Cancelled();

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
      await rm(staging, { recursive: true, force: true }).catch(() => {});
      if (error instanceof Cancelled || cancelled) return done(false, 'cancelled', 'Install cancelled; the previous environment is unchanged.');
      return done(false, 'failed', `Install failed: ${error instanceof Error ? error.message : String(error)}. The previous environment is unchanged.`);
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
            if (process.platform === 'win32') p.kill(signal);
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
