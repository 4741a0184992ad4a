// A Slurm job's state in the app's words: whether it is over, and for a job that ended badly the
// failure class and a fix (the texts live with every other class in error-signatures.json; what is
// said here is the job's own evidence: its state, reason, exit code, MaxRSS).

/** States after which nothing more happens to the job. */
const TERMINAL = new Set([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMEOUT',
  'NODE_FAIL',
  'PREEMPTED',
  'OUT_OF_MEMORY',
  'BOOT_FAIL',
  'DEADLINE',
  'REVOKED',
  'SPECIAL_EXIT',
]);

/** `CANCELLED by 0`, `CANCELLED+` → `CANCELLED`. */
export function baseState(state: string): string {
  return state.trim().split(/[\s+]/)[0].toUpperCase();
}

export function isTerminal(state: string): boolean {
  return TERMINAL.has(baseState(state));
}

export interface JobFacts {
  state: string;
  reason: string | null;
  /** `code:signal` as Slurm prints it. */
  exitCode: string | null;
  maxRssBytes: number | null;
  timeLimitMinutes: number;
}

export interface JobVerdict {
  /** null: the job's state does not decide it (COMPLETED/FAILED: the runner's own lines do). */
  errorClass: 'timeout' | 'host_oom' | 'node_failure' | 'preempted' | 'cancelled' | null;
  message: string | null;
}

const mib = (bytes: number | null) => (bytes === null ? null : `${Math.round(bytes / 2 ** 20)} MiB`);

export function jobVerdict(job: JobFacts): JobVerdict {
  const state = baseState(job.state);
  switch (state) {
    case 'TIMEOUT':
    case 'DEADLINE':
      return {
        errorClass: 'timeout',
        message: `Slurm ended the job at its time limit (${job.timeLimitMinutes} min, state ${state}). Raise the target's timeLimitMinutes or run fewer steps.`,
      };
    case 'OUT_OF_MEMORY': {
      const rss = mib(job.maxRssBytes);
      return {
        errorClass: 'host_oom',
        message: `Slurm killed the job for using more memory than it asked for (OUT_OF_MEMORY${rss ? `, MaxRSS ${rss}` : ''}). Raise the target's memPerNodeMiB or pick a strategy that keeps less in host memory.`,
      };
    }
    case 'NODE_FAIL':
    case 'BOOT_FAIL':
      return { errorClass: 'node_failure', message: `A node of the job failed (${state}${job.reason ? `: ${job.reason}` : ''}).` };
    case 'PREEMPTED':
      return { errorClass: 'preempted', message: 'Slurm preempted the job for a higher-priority one.' };
    case 'CANCELLED':
    case 'REVOKED':
      return { errorClass: 'cancelled', message: `The job was cancelled (${job.state.trim()}).` };
    default:
      return { errorClass: null, message: null };
  }
}
