// Waiting on a job until Slurm says it is over (pre-flight's tiny jobs; runs use the job follower).
import type { SlurmRunner } from './commands';
import { queryJob, type JobSnapshot } from './query';
import { isTerminal } from './states';

export async function waitForJob(
  run: SlurmRunner,
  jobId: string,
  options: { timeoutMs: number; pollMs?: number; done?: () => boolean },
): Promise<JobSnapshot | null> {
  const deadline = Date.now() + options.timeoutMs;
  let last: JobSnapshot | null = null;
  while (Date.now() < deadline) {
    last = await queryJob(run, jobId);
    if (last && isTerminal(last.state)) return last;
    if (!last && options.done?.()) return null;
    await new Promise((r) => setTimeout(r, options.pollMs ?? 500));
  }
  return last;
}

/** `Submitted batch job 12` / `12;cluster` (--parsable) → the id. */
export function parseJobId(stdout: string): string | null {
  const m = /^(\d+)(?:;\S+)?\s*$/m.exec(stdout.trim()) ?? /Submitted batch job (\d+)/.exec(stdout);
  return m ? m[1] : null;
}
