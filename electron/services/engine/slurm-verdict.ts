// How a Slurm job's run ended: the scheduler's state first where it decides (time limit, out of
// memory, node failure, preemption, cancel), else the runner's own lines, as for a local run.
// Shared by the follower (engine/slurm-job.ts) and the restart's settling (engine/slurm-settle.ts).
import type { ErrorMessage } from '../../contract';
import { jobVerdict } from '../cluster';
import { classifyRun, DEFAULT_FIX, type Verdict } from './classify';

export interface JobEvidence {
  state: string;
  reason: string | null;
  /** Slurm's `code:signal`. */
  slurmExitCode: string | null;
  maxRssBytes: number | null;
  timeLimitMinutes: number;
  /** What the job script wrote when the launcher returned (null: it never got there). */
  exitText: string | null;
  resultSeen: boolean;
  errorLine: Pick<ErrorMessage, 'class' | 'message' | 'fix'> | null;
  stderrTail: readonly string[];
  stopReason: 'cancel' | 'timeout' | null;
  nonFiniteLossStep: number | null;
}

export function jobExitCode(e: Pick<JobEvidence, 'exitText' | 'slurmExitCode'>): number | null {
  if (e.exitText !== null && /^\d+$/.test(e.exitText)) return Number(e.exitText);
  const code = e.slurmExitCode?.split(':')[0];
  return code !== undefined && /^\d+$/.test(code) ? Number(code) : null;
}

export function jobRunVerdict(e: JobEvidence): Verdict {
  const jv = jobVerdict({
    state: e.state,
    reason: e.reason,
    exitCode: e.slurmExitCode,
    maxRssBytes: e.maxRssBytes,
    timeLimitMinutes: e.timeLimitMinutes,
  });
  if (jv.errorClass === 'cancelled' || (jv.errorClass === null && e.stopReason === 'cancel' && !e.resultSeen))
    return { status: 'cancelled', errorClass: 'cancelled', message: jv.message ?? 'The job was cancelled.', fix: null };
  // A result line and COMPLETED: the scheduler has nothing to add.
  if (jv.errorClass && !(e.resultSeen && /^COMPLETED/.test(e.state)))
    return { status: 'failed', errorClass: jv.errorClass, message: jv.message, fix: DEFAULT_FIX[jv.errorClass] };
  return classifyRun({
    exitCode: jobExitCode(e),
    signal: null,
    errorLine: e.errorLine,
    resultSeen: e.resultSeen,
    stderrTail: e.stderrTail,
    stopReason: e.stopReason,
    nonFiniteLossStep: e.nonFiniteLossStep,
  });
}
