// After a restart: runs that were Slurm jobs and that this app stopped following (start-up
// recovery marked them interrupted) are asked about. A job that has ended gets its real end —
// the scheduler's state, the runner's result and steps from the job's output file on the shared
// folder; one still queued or running keeps its job record up to date and is settled by a later start.
import fs from 'node:fs';
import path from 'node:path';
import { SlurmJobRecordSchema, toRunSample, type ErrorMessage, type ResultMessage, type RunSample } from '../../contract';
import type { HistoryStore } from '../history';
import { createSlurmService, isTerminal, queryJob, runSlurm, type SlurmRunner } from '../cluster';
import { createStdoutParser } from './jsonl';
import { jobExitCode, jobRunVerdict } from './slurm-verdict';

export interface SettleOptions {
  history: HistoryStore;
  dataDir: string;
  bundledEngineDir: string;
  run?: SlurmRunner;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Returns the ids of the runs it settled. */
export async function settleJobRuns(options: SettleOptions): Promise<string[]> {
  const run = options.run ?? runSlurm;
  const { history } = options;
  const settled: string[] = [];
  const targets = createSlurmService({ dataDir: options.dataDir, bundledEngineDir: options.bundledEngineDir });
  for (const row of history.unsettledJobRuns()) {
    // A running row of a live owner is being followed by that owner.
    if (row.status !== 'interrupted') continue;
    let body: unknown;
    try {
      body = JSON.parse(row.body);
    } catch {
      continue;
    }
    const parsed = SlurmJobRecordSchema.safeParse(body);
    if (!parsed.success) continue;
    const job = parsed.data;
    const snap = await queryJob(run, job.jobId);
    const exitText = readText(path.join(job.runDir, 'exit-code'))?.trim() ?? null;
    if (snap && !isTerminal(snap.state)) {
      history.recordJob(row.id, { ...job, state: snap.state, reason: snap.reason, nodes: snap.nodes.length ? snap.nodes : job.nodes });
      continue;
    }
    // Forgotten by Slurm and no exit file: nothing says how it ended; it stays interrupted.
    if (!snap && exitText === null) continue;
    let result: ResultMessage | null = null;
    let errorLine: ErrorMessage | null = null;
    let nonFinite: number | null = null;
    const steps: RunSample[] = [];
    const parser = createStdoutParser({
      message(m) {
        if (m.type === 'result') result = m;
        if (m.type === 'error') errorLine = m;
        if (m.type === 'step') {
          steps.push(toRunSample(m));
          if (m.loss === null && nonFinite === null) nonFinite = m.step;
        }
      },
      log: () => {},
    });
    parser.push(Buffer.from(readText(path.join(job.runDir, 'stdout.jsonl')) ?? ''));
    parser.end();
    const tail = (readText(path.join(job.runDir, 'stderr.log')) ?? '').split('\n').slice(-200);
    const state = snap?.state ?? (exitText === '0' ? 'COMPLETED' : 'FAILED');
    const timeLimit = targets.list().find((r) => r.target.name === job.target)?.target.timeLimitMinutes ?? snap?.timeLimitMinutes ?? 0;
    const verdict = jobRunVerdict({
      state,
      reason: snap?.reason ?? null,
      slurmExitCode: snap?.exitCode ?? null,
      maxRssBytes: snap?.maxRssBytes ?? null,
      timeLimitMinutes: timeLimit,
      exitText,
      resultSeen: result !== null,
      errorLine,
      stderrTail: tail,
      stopReason: null,
      nonFiniteLossStep: nonFinite,
    });
    // Steps the app did not see before it stopped.
    const stored = new Set(history.samples(row.id).map((s) => s.step));
    const missing = steps.filter((s) => !stored.has(s.step));
    if (missing.length) history.appendSamples(row.id, missing);
    const ended = history.settleJobRun(row.id, {
      status: verdict.status,
      errorClass: verdict.errorClass,
      errorMessage: verdict.message ? `${verdict.message} (Slurm job ${job.jobId}: ${state}; found after the app restarted)` : null,
      errorFix: verdict.fix,
      exitCode: jobExitCode({ exitText, slurmExitCode: snap?.exitCode ?? null }),
      result,
    });
    history.recordJob(row.id, {
      ...job,
      state,
      reason: snap?.reason ?? null,
      exitCode: snap?.exitCode ?? job.exitCode,
      maxRssBytes: snap?.maxRssBytes ?? null,
      nodes: snap?.nodes.length ? snap.nodes : job.nodes,
    });
    if (ended) settled.push(row.id);
  }
  return settled;
}
