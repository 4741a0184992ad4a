// A run as a Slurm job, behind the same handle a local runner has: the sweep writes the spec, this
// writes the sbatch script beside it on the shared folder, submits it, follows the job
// (scontrol/sacct), streams the runner's JSON lines from the job's output file while it runs, and
// ends with a verdict in the job's words. Cancel is scancel.
import fs from 'node:fs';
import path from 'node:path';
import type { RunSpec, SlurmJobRecord, SlurmTarget } from '../../contract';
import {
  buildSbatchScript,
  isTerminal,
  jobFiles,
  parseJobId,
  queryJob,
  runSlurm,
  slurmMessage,
  stageSlurmEngine,
  type JobSnapshot,
  type SlurmRunner,
} from '../cluster';
import { DEFAULT_FIX } from './classify';
import { createRunnerStreams, streamsOutcome } from './runner-streams';
import type { RunnerHandle, RunnerOptions, RunnerOutcome } from './runner-process';
import { jobExitCode, jobRunVerdict } from './slurm-verdict';

export interface SlurmJobOptions extends Omit<RunnerOptions, 'launch' | 'stdin' | 'graceMs'> {
  target: SlurmTarget;
  spec: RunSpec;
  bundledEngineDir: string;
  run?: SlurmRunner;
  pollMs?: number;
  /** Called whenever what we know of the job changes (history keeps it with the run). */
  onJob?(job: SlurmJobRecord): void;
  /** The job was submitted with the rest of its sweep (a chain or an array): follow it, do not submit. */
  submitted?: Promise<{ jobId: string } | { refused: string }>;
}

/** Reads what was appended to a file since the last call. */
export class FileTail {
  private offset = 0;
  constructor(
    private readonly file: string,
    private readonly push: (chunk: Buffer) => void,
  ) {}
  poll(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return; // not there yet: the job has not started
    }
    try {
      const size = fs.fstatSync(fd).size;
      // The file started over (a job someone requeued by hand): read it from its start.
      if (size < this.offset) this.offset = 0;
      while (this.offset < size) {
        const buf = Buffer.alloc(Math.min(size - this.offset, 1 << 20));
        const n = fs.readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.push(buf.subarray(0, n));
      }
    } finally {
      fs.closeSync(fd);
    }
  }
}

export function jobRecord(
  target: SlurmTarget,
  jobId: string,
  snap: JobSnapshot | null,
  runDir: string,
  scriptPath: string,
): SlurmJobRecord {
  return {
    scheduler: 'slurm',
    target: target.name,
    partition: target.partition,
    jobId,
    nodes: snap?.nodes ?? [],
    state: snap?.state ?? 'SUBMITTED',
    reason: snap?.reason ?? null,
    exitCode: snap?.exitCode ?? null,
    maxRssBytes: snap?.maxRssBytes ?? null,
    runDir,
    scriptPath,
  };
}

export function startSlurmJob(options: SlurmJobOptions): RunnerHandle {
  const run = options.run ?? runSlurm;
  const { target, spec } = options;
  const started = Date.now();
  const files = jobFiles(target, spec.runId);
  let stopReason: RunnerOutcome['stopReason'] = null;
  let forced = false;
  let jobId: string | null = null;
  let cancelRequested: 'cancel' | 'kill' | null = null;
  const log = options.logFile
    ? (fs.mkdirSync(path.dirname(options.logFile), { recursive: true }), fs.createWriteStream(options.logFile, { flags: 'a' }))
    : null;
  log?.on('error', () => {});
  const logLine = (line: string) => {
    log?.write(line + '\n');
    try {
      options.onLog?.(line);
    } catch {
      // a log listener's failure must not end the follower
    }
  };
  const streams = createRunnerStreams((m) => options.onMessage?.(m), logLine);
  const { stdout, stderr } = streams;
  const outTail = new FileTail(files.stdoutFile, (c) => stdout.push(c));
  const errTail = new FileTail(files.stderrFile, (c) => stderr.push(c));

  const scancel = async (kill: boolean) => {
    if (!jobId) return;
    const r = await run('scancel', kill ? ['--signal=KILL', '--full', jobId] : [jobId]);
    logLine(`[slurm] scancel ${jobId}${r.code === 0 ? '' : `: ${slurmMessage(r)}`}`);
  };

  const finish = (
    verdict: Pick<RunnerOutcome, 'status' | 'errorClass' | 'message' | 'fix'>,
    exitCode: number | null,
  ): Promise<RunnerOutcome> => {
    stdout.end();
    stderr.end();
    const outcome: RunnerOutcome = {
      ...verdict,
      exitCode,
      signal: null,
      stopReason,
      forced,
      ...streamsOutcome(streams),
      durationMs: Date.now() - started,
    };
    return new Promise((resolve) => (log ? log.end(() => resolve(outcome)) : resolve(outcome)));
  };

  const follow = async (): Promise<RunnerOutcome> => {
    let said: string | null = null;
    if (options.submitted) {
      const ahead = await options.submitted;
      if ('jobId' in ahead) jobId = ahead.jobId;
      else said = ahead.refused;
    } else {
      fs.mkdirSync(files.runDir, { recursive: true });
      fs.writeFileSync(files.specFile, JSON.stringify(spec, null, 2));
      fs.writeFileSync(
        files.scriptFile,
        buildSbatchScript(target, { runId: spec.runId, strategy: spec.strategy, files, nodes: spec.nodes }),
      );
      stageSlurmEngine(target, options.bundledEngineDir);
      if (cancelRequested) {
        stopReason = 'cancel';
        return finish(
          { status: 'cancelled', errorClass: 'cancelled', message: 'Cancelled before the job was submitted.', fix: null },
          null,
        );
      }
      const submit = await run('sbatch', ['--parsable', files.scriptFile]);
      jobId = submit.code === 0 ? parseJobId(submit.stdout) : null;
      if (!jobId) said = slurmMessage(submit);
    }
    if (!jobId) {
      logLine(`[slurm] sbatch ${files.scriptFile}: ${said ?? 'no job id'}`);
      return finish(
        {
          status: 'failed',
          errorClass: 'job_refused',
          message: `Slurm refused the job: ${said ?? 'no job id'}`,
          fix: DEFAULT_FIX.job_refused,
        },
        null,
      );
    }
    const id = jobId;
    logLine(
      `[slurm] ${options.submitted ? 'following' : 'submitted'} job ${id} on partition ${target.partition} (script ${files.scriptFile})`,
    );
    options.onJob?.(jobRecord(target, id, null, files.runDir, files.scriptFile));
    if (cancelRequested) void scancel(cancelRequested === 'kill');

    const maxPendingMs = target.maxPendingMinutes ? target.maxPendingMinutes * 60_000 : null;
    let pendingSince: number | null = null;
    let pendingTooLong = false;
    let seen = '';
    let snap: JobSnapshot | null = null;
    let missing = 0;
    for (;;) {
      outTail.poll();
      errTail.poll();
      snap = await queryJob(run, id);
      if (snap) {
        missing = 0;
        const now = `${snap.state}${snap.reason ? ` (${snap.reason})` : ''}${snap.nodes.length ? ` on ${snap.nodes.join(',')}` : ''}`;
        if (now !== seen) {
          seen = now;
          logLine(`[slurm] job ${id}: ${now}`);
          options.onJob?.(jobRecord(target, id, snap, files.runDir, files.scriptFile));
        }
        if (isTerminal(snap.state)) break;
        // Waiting for the sweep's previous job (a chain) is not waiting for the cluster.
        if (snap.state.startsWith('PENDING') && snap.reason !== 'Dependency') {
          pendingSince ??= Date.now();
          if (maxPendingMs !== null && Date.now() - pendingSince > maxPendingMs && !pendingTooLong) {
            pendingTooLong = true;
            logLine(
              `[slurm] job ${id} pending for more than ${target.maxPendingMinutes} min (${snap.reason ?? 'no reason given'}): cancelling it`,
            );
            await scancel(false);
          }
        }
      } else if (++missing >= 5 || fs.existsSync(files.exitFile)) {
        // Slurm forgot the job (MinJobAge passed, no accounting): the exit file is what is left.
        break;
      }
      await new Promise((r) => setTimeout(r, options.pollMs ?? 1000));
    }
    // The output file may still be landing on a network filesystem: read until it stops growing.
    for (let i = 0; i < 3; i++) {
      outTail.poll();
      errTail.poll();
      await new Promise((r) => setTimeout(r, 200));
    }
    const exitText = fs.existsSync(files.exitFile) ? fs.readFileSync(files.exitFile, 'utf8').trim() : null;
    const exitCode = jobExitCode({ exitText, slurmExitCode: snap?.exitCode ?? null });
    if (pendingTooLong)
      return finish(
        {
          status: 'failed',
          errorClass: 'pending_too_long',
          message: `The job waited in the queue more than ${target.maxPendingMinutes} min (${snap?.reason ?? 'no reason given'}) and was cancelled.`,
          fix: DEFAULT_FIX.pending_too_long,
        },
        exitCode,
      );
    const verdict = jobRunVerdict({
      state: snap?.state ?? (exitText === '0' ? 'COMPLETED' : 'UNKNOWN'),
      reason: snap?.reason ?? null,
      slurmExitCode: snap?.exitCode ?? null,
      maxRssBytes: snap?.maxRssBytes ?? null,
      timeLimitMinutes: target.timeLimitMinutes,
      exitText,
      resultSeen: streams.result !== null,
      errorLine: streams.errorLine,
      stderrTail: streams.tail,
      stopReason,
      nonFiniteLossStep: streams.nonFiniteLossStep,
    });
    return finish(verdict, exitCode);
  };

  const done = follow().catch((error: unknown) =>
    finish(
      {
        status: 'failed',
        errorClass: 'spawn',
        message: `The job could not be submitted or followed: ${error instanceof Error ? error.message : String(error)}`,
        fix: DEFAULT_FIX.spawn,
      },
      null,
    ),
  );

  return {
    pid: undefined,
    done,
    cancel() {
      if (stopReason) return;
      stopReason = 'cancel';
      cancelRequested = 'cancel';
      void scancel(false);
    },
    kill() {
      forced = true;
      stopReason ??= 'cancel';
      cancelRequested = 'kill';
      void scancel(true);
    },
    note: logLine,
  };
}
