// One runner child process: spawned with an argument vector (never a shell) as the leader of its
// own process group, so a cancel reaches every rank the deepspeed launcher starts and a
// straggler (a CPU Adam worker) cannot outlive the run. Cancel and timeout are graceful first
// (SIGINT to the group: the runner reports 'cancelled' and exits 130), forced after a grace
// period (SIGKILL to the group).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorMessage, ResultMessage, RunnerMessage } from '../../contract';
import { classifyRun, type RunEvidence, type Verdict } from './classify';
import { createRunnerStreams, streamsOutcome } from './runner-streams';

export interface RunnerLaunch {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface RunnerOptions {
  launch: RunnerLaunch;
  /** Written to the child's stdin, then closed (for `--spec -`). Without it stdin is /dev/null. */
  stdin?: string;
  /** Wall-clock limit; past it the run is stopped and classed 'timeout'. */
  timeoutMs?: number;
  /** Time between the graceful signal and SIGKILL. */
  graceMs?: number;
  /** The run's log: stderr lines and stdout lines that are not protocol. */
  logFile?: string;
  stderrTailLines?: number;
  onMessage?(message: RunnerMessage): void;
  onLog?(line: string): void;
}

export interface RunnerOutcome extends Verdict {
  exitCode: number | null;
  signal: string | null;
  stopReason: 'cancel' | 'timeout' | null;
  forced: boolean; // SIGKILL was needed
  result: ResultMessage | null;
  errorLine: ErrorMessage | null;
  stderrTail: string[];
  protocolErrors: number;
  durationMs: number;
}

export interface RunnerHandle {
  readonly pid: number | undefined;
  readonly done: Promise<RunnerOutcome>;
  /** Graceful stop (SIGINT to the group), SIGKILL after the grace period. Idempotent. */
  cancel(): void;
  /** Immediate SIGKILL of the group (a second Ctrl-C). */
  kill(): void;
  /** A line of the orchestrator's own into the run's log (file and onLog). */
  note(line: string): void;
}

export const DEFAULT_GRACE_MS = 10_000;
const STREAM_DRAIN_MS = 2_000;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (!child.pid) return false;
  // Windows has no process groups and no SIGINT for a child: end the whole tree (the deepspeed
  // launcher's ranks, SuperOffload's workers) with taskkill /T /F; the leader alone would leave them.
  if (process.platform === 'win32') {
    const r = spawnSync('taskkill', ['/PID', String(child.pid), '/T', '/F'], { windowsHide: true, timeout: 10_000 });
    return r.status === 0 || child.kill(signal);
  }
  try {
    process.kill(-child.pid, signal); // negative pid: the whole process group
    return true;
  } catch {
    // ESRCH: the group is gone already. Fall back to the leader alone (not detached on some platforms).
    try {
      return child.kill(signal);
    } catch {
      return false;
    }
  }
}

export function startRunner(options: RunnerOptions): RunnerHandle {
  const started = Date.now();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const tailMax = options.stderrTailLines ?? 200;
  let stopReason: RunnerOutcome['stopReason'] = null;
  let forced = false;
  let spawnError: string | null = null;
  let log: fs.WriteStream | null = null;
  if (options.logFile) {
    fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
    log = fs.createWriteStream(options.logFile, { flags: 'a' });
    log.on('error', () => (log = null)); // a full disk must not kill the run; the DB still has it
  }
  const logLine = (line: string) => {
    log?.write(line + '\n');
    try {
      options.onLog?.(line);
    } catch (error) {
      log?.write(`[offload-studio] log handler failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  };

  const child = spawn(options.launch.command, options.launch.args, {
    cwd: options.launch.cwd,
    // OFFLOAD_STUDIO_APP_PID: the runner's parent-death watchdog (resources/engine/parent_watch.py)
    // ends it when this process is gone, also under the deepspeed launcher (whose ranks' parent it is not).
    env: { ...process.env, PYTHONUNBUFFERED: '1', OFFLOAD_STUDIO_APP_PID: String(process.pid), ...options.launch.env },
    shell: false,
    detached: true, // own process group: signals go to -pid; Ctrl-C in a terminal reaches only us
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });

  const streams = createRunnerStreams((m) => options.onMessage?.(m), logLine, tailMax);
  const { stdout, stderr } = streams;
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  if (options.stdin !== undefined && child.stdin) {
    child.stdin.on('error', () => {}); // EPIPE when the runner exits before reading
    child.stdin.end(options.stdin);
  }

  let exited = false;
  let graceTimer: NodeJS.Timeout | null = null;
  const stop = (reason: 'cancel' | 'timeout') => {
    if (stopReason || exited) return;
    stopReason = reason;
    signalGroup(child, 'SIGINT');
    graceTimer = setTimeout(() => {
      forced = true;
      signalGroup(child, 'SIGKILL');
    }, graceMs);
  };
  const timeoutTimer = options.timeoutMs ? setTimeout(() => stop('timeout'), options.timeoutMs) : null;

  const done = new Promise<RunnerOutcome>((resolve) => {
    let finished = false;
    const finish = (exitCode: number | null, signal: string | null) => {
      if (finished) return;
      finished = true;
      exited = true;
      if (timeoutTimer) clearTimeout(timeoutTimer);
      if (graceTimer) clearTimeout(graceTimer);
      // Whatever the leader left behind in its group (workers, launcher ranks) goes with it.
      if (child.pid) signalGroup(child, 'SIGKILL');
      const streamsClosed = Promise.all(
        [child.stdout, child.stderr].map((s) =>
          s && !s.readableEnded && !s.destroyed ? new Promise((r) => s.once('close', r)) : Promise.resolve(),
        ),
      );
      // A grandchild that escaped the group could hold the pipes open: do not wait forever.
      const drained = new Promise((r) => setTimeout(r, STREAM_DRAIN_MS).unref());
      void Promise.race([streamsClosed, drained]).then(() => {
        stdout.end();
        stderr.end();
        const evidence: RunEvidence = {
          exitCode,
          signal,
          errorLine: streams.errorLine,
          resultSeen: streams.result !== null,
          stderrTail: streams.tail,
          stopReason,
          limitSeconds: options.timeoutMs ? options.timeoutMs / 1000 : undefined,
          spawnError,
          nonFiniteLossStep: streams.nonFiniteLossStep,
        };
        const verdict = classifyRun(evidence);
        const outcome: RunnerOutcome = {
          ...verdict,
          exitCode,
          signal,
          stopReason,
          forced,
          ...streamsOutcome(streams),
          durationMs: Date.now() - started,
        };
        const close = log ? new Promise<void>((r) => log!.end(() => r())) : Promise.resolve();
        void close.then(() => resolve(outcome));
      });
    };
    child.once('error', (error) => {
      // Spawn failure (ENOENT/EACCES): no 'exit' will follow.
      if (!child.pid) {
        spawnError = `${options.launch.command}: ${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`.trim();
        finish(null, null);
      }
    });
    child.once('exit', (code, signal) => finish(code, signal));
  });

  return {
    get pid() {
      return child.pid;
    },
    done,
    cancel: () => stop('cancel'),
    note: logLine,
    kill() {
      if (exited) return;
      if (!stopReason) stopReason = 'cancel';
      forced = true;
      signalGroup(child, 'SIGKILL');
    },
  };
}
