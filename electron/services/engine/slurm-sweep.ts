// A sweep on a Slurm target submitted up front: as a dependency chain (each job
// `--dependency=afterany:` the previous: Slurm keeps the sweep's order, one run measuring at a time)
// or as one job array (Slurm runs as many at once as the partition allows). Every run keeps its
// own folder, spec and readable script; the follower of each run then follows its job (or array task).
import fs from 'node:fs';
import path from 'node:path';
import type { RunSpec, SlurmTarget } from '../../contract';
import {
  buildArrayScript,
  buildSbatchScript,
  jobFiles,
  parseJobId,
  runSlurm,
  slurmMessage,
  stageSlurmEngine,
  type SlurmRunner,
} from '../cluster';

export interface AheadSubmission {
  /** The job (or array task) of a run: its id, or why there is none (Slurm's words). */
  jobOf(runId: string): Promise<{ jobId: string } | { refused: string }>;
  /** Cancels the jobs of runs that will not be followed (the sweep was cancelled). */
  abandon(runId: string): void;
}

export function submitAhead(
  target: SlurmTarget,
  sweepId: string,
  runs: { id: string; spec: RunSpec }[],
  options: { bundledEngineDir: string; run?: SlurmRunner },
): AheadSubmission {
  const run = options.run ?? runSlurm;
  const mode = target.sweepMode;
  const ids = new Map<string, { jobId: string } | { refused: string }>();
  const submitted = (async () => {
    stageSlurmEngine(target, options.bundledEngineDir);
    const files = runs.map((r) => ({ ...r, files: jobFiles(target, r.id) }));
    for (const r of files) {
      fs.mkdirSync(r.files.runDir, { recursive: true });
      fs.writeFileSync(r.files.specFile, JSON.stringify(r.spec, null, 2));
    }
    if (mode === 'array') {
      for (const r of files)
        fs.writeFileSync(
          r.files.scriptFile,
          buildSbatchScript(target, { runId: r.id, strategy: r.spec.strategy, files: r.files, nodes: r.spec.nodes }),
        );
      const arrayDir = path.posix.join(target.workDir, 'sweeps', sweepId);
      fs.mkdirSync(arrayDir, { recursive: true });
      const script = path.posix.join(arrayDir, 'array.sbatch');
      fs.writeFileSync(
        script,
        buildArrayScript(target, {
          sweepId,
          runs: files.map((r) => ({ runId: r.id, files: r.files })),
          nodes: runs[0]?.spec.nodes,
          arrayDir,
        }),
      );
      const s = await run('sbatch', ['--parsable', script]);
      const arrayId = s.code === 0 ? parseJobId(s.stdout) : null;
      files.forEach((r, i) => ids.set(r.id, arrayId ? { jobId: `${arrayId}_${i}` } : { refused: slurmMessage(s) }));
      return;
    }
    let previous: string | null = null;
    for (const r of files) {
      fs.writeFileSync(
        r.files.scriptFile,
        buildSbatchScript(target, {
          runId: r.id,
          strategy: r.spec.strategy,
          files: r.files,
          nodes: r.spec.nodes,
          afterJob: previous ?? undefined,
        }),
      );
      const s = await run('sbatch', ['--parsable', r.files.scriptFile]);
      const jobId = s.code === 0 ? parseJobId(s.stdout) : null;
      ids.set(r.id, jobId ? { jobId } : { refused: slurmMessage(s) });
      if (jobId) previous = jobId;
    }
  })();
  return {
    async jobOf(runId) {
      await submitted;
      return ids.get(runId) ?? { refused: 'the run was not submitted' };
    },
    abandon(runId) {
      void submitted.then(() => {
        const job = ids.get(runId);
        if (job && 'jobId' in job) void run('scancel', [job.jobId]);
      });
    },
  };
}
