// Where a job stands, asked of Slurm: `scontrol show job` while the controller still holds it
// (running, and finished for MinJobAge), `sacct` after that where the cluster keeps accounting.
// Without either the caller falls back on the job's exit file on the shared folder.
import type { SlurmRunner } from './commands';
import { expandNodeList, parseScontrolRecords, slurmBytes } from './parse';

export interface JobSnapshot {
  jobId: string;
  state: string;
  reason: string | null;
  exitCode: string | null;
  nodes: string[];
  timeLimitMinutes: number | null;
  maxRssBytes: number | null;
  source: 'scontrol' | 'sacct';
}

const orNull = (v: string | undefined) => (v === undefined || v === '' || v === '(null)' || v === 'None' ? null : v);

/** `1-02:03:04`, `02:03:04`, `5` (minutes) → minutes. */
export function slurmMinutes(value: string | undefined): number | null {
  if (!value || value === 'UNLIMITED' || value === 'Partition_Limit') return null;
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+)(?::(\d+))?$/.exec(value);
  if (!m) return null;
  const [, d, a, b, c] = m;
  // D-HH:MM:SS, HH:MM:SS, MM:SS, MM
  if (c !== undefined) return Number(d ?? 0) * 1440 + Number(a ?? 0) * 60 + Number(b) + Number(c) / 60;
  if (a !== undefined) return Number(d ?? 0) * 1440 + (d ? Number(a) * 60 + Number(b) : Number(a) + Number(b) / 60);
  return Number(d ?? 0) * 1440 + Number(b);
}

export function snapshotFromScontrol(record: Record<string, string>): JobSnapshot {
  return {
    jobId: record.JobId,
    state: record.JobState ?? 'UNKNOWN',
    reason: orNull(record.Reason),
    exitCode: orNull(record.ExitCode),
    nodes: expandNodeList(orNull(record.NodeList) ?? undefined),
    timeLimitMinutes: slurmMinutes(record.TimeLimit),
    maxRssBytes: null,
    source: 'scontrol',
  };
}

/** `sacct -P -n -o JobID,State,ExitCode,NodeList,MaxRSS,Reason,Timelimit`: the job's line, its steps' MaxRSS. */
export function snapshotFromSacct(jobId: string, text: string): JobSnapshot | null {
  const rows = text
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('|'));
  const job = rows.find((r) => r[0] === jobId);
  if (!job) return null;
  const rss = rows.map((r) => slurmBytes(r[4])).filter((v): v is number => v !== null);
  return {
    jobId,
    state: job[1],
    reason: orNull(job[5]),
    exitCode: orNull(job[2]),
    nodes: expandNodeList(orNull(job[3]) ?? undefined),
    timeLimitMinutes: slurmMinutes(job[6]),
    maxRssBytes: rss.length ? Math.max(...rss) : null,
    source: 'sacct',
  };
}

/** The record of a job, or of one task of a job array (`12_3`): its own once it started, the
 * array's pending remainder (`ArrayTaskId=3-7`) while it waits. */
export function recordOf(records: Record<string, string>[], jobId: string): Record<string, string> | undefined {
  const [base, task] = jobId.split('_');
  if (task === undefined) return records.find((r) => r.JobId === base);
  const own = records.find((r) => r.ArrayJobId === base && r.ArrayTaskId === task);
  if (own) return own;
  const t = Number(task);
  return records.find(
    (r) =>
      r.ArrayJobId === base &&
      (r.ArrayTaskId ?? '')
        .split('%')[0]
        .split(',')
        .some((part) => {
          const [a, b] = part.split('-').map(Number);
          return b === undefined ? a === t : t >= a && t <= b;
        }),
  );
}

export async function queryJob(run: SlurmRunner, jobId: string): Promise<JobSnapshot | null> {
  const sc = await run('scontrol', ['-o', 'show', 'job', jobId]);
  let snapshot: JobSnapshot | null = null;
  if (sc.code === 0) {
    const record = recordOf(parseScontrolRecords(sc.stdout), jobId);
    if (record) snapshot = { ...snapshotFromScontrol(record), jobId };
  }
  // sacct knows MaxRSS (and jobs the controller has forgotten) where accounting is kept.
  const terminalOrGone = !snapshot || !/^(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED)/.test(snapshot.state);
  if (terminalOrGone) {
    const sa = await run('sacct', ['-P', '-n', '-j', jobId, '-o', 'JobID,State,ExitCode,NodeList,MaxRSS,Reason,Timelimit']);
    const fromSacct = sa.code === 0 ? snapshotFromSacct(jobId, sa.stdout) : null;
    if (fromSacct && snapshot) return { ...snapshot, maxRssBytes: fromSacct.maxRssBytes };
    if (fromSacct) return fromSacct;
  }
  return snapshot;
}
