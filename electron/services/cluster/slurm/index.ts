// Slurm targets: a cluster reached through its scheduler. The store, detection (sinfo/scontrol),
// pre-flight (sbatch --test-only and a tiny job), the sbatch script of a run, and what a job's
// state means. The engine service follows the jobs (engine/slurm-job.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, RunSpecSchema, type SlurmTarget, type SlurmTargetRecord } from '../../../contract';
import { isRunnerFile } from '../snippets';
import { runSlurm, type SlurmRunner } from './commands';
import { detectPartition } from './detect';
import { shapeToMachine } from './machine';
import { slurmPreflight, type SlurmPreflightOptions } from './preflight';
import { buildSbatchScript, engineDirOf, jobFiles } from './script';
import { openSlurmStore } from './store';

export { runSlurm, slurmMessage, type SlurmCall, type SlurmRunner } from './commands';
export { parseScontrolLine, parseScontrolRecords, parseGres, slurmBytes, expandNodeList } from './parse';
export { queryJob, recordOf, snapshotFromScontrol, snapshotFromSacct, slurmMinutes, type JobSnapshot } from './query';
export { baseState, isTerminal, jobVerdict, type JobFacts, type JobVerdict } from './states';
export { buildSbatchScript, buildArrayScript, jobFiles, engineDirOf, shq, type JobFiles } from './script';
export { shapeOf } from './detect';
export { shapeToMachine } from './machine';
export { parseJobId, waitForJob } from './wait';
export { SLURM_TARGETS_FILE } from './store';

export interface SlurmServiceOptions {
  dataDir: string;
  bundledEngineDir: string;
  run?: SlurmRunner;
  preflight?: SlurmPreflightOptions;
}

/** Copies the app's runner into the target's engine folder on the shared filesystem, when it is the default one. */
export function stageSlurmEngine(target: SlurmTarget, bundledEngineDir: string): string {
  const engineDir = engineDirOf(target);
  if (target.engineDir) return engineDir; // the user's own: used as it is
  fs.mkdirSync(engineDir, { recursive: true, mode: 0o700 });
  for (const f of fs.readdirSync(bundledEngineDir))
    if (isRunnerFile(f) && fs.statSync(path.join(bundledEngineDir, f)).isFile())
      fs.copyFileSync(path.join(bundledEngineDir, f), path.join(engineDir, f));
  return engineDir;
}

export function createSlurmService(options: SlurmServiceOptions) {
  const store = openSlurmStore(options.dataDir);
  const run = options.run ?? runSlurm;
  function need(name: string): SlurmTargetRecord {
    const record = store.get(name);
    if (!record)
      throw new ApiError(
        'not_found',
        `No Slurm target named '${name}'. Save it first (cluster save FILE.json with "kind": "slurm").`,
        'name',
      );
    return record;
  }
  return {
    list: () => store.list(),
    get: (name: string) => need(name),
    has: (name: string) => store.get(name) !== null,
    save: (target: SlurmTarget) => store.save(target),
    remove: (name: string) => store.remove(name),
    async detect(name: string) {
      const { target } = need(name);
      const shape = await detectPartition(run, target);
      store.recordDetection(name, shape);
      return shape;
    },
    /** The machine a plan for the target is for (one node of its partition), from the stored detection. */
    machine(name: string) {
      const { target, detected } = need(name);
      if (!detected)
        throw new ApiError('not_found', `Slurm target '${name}' has not been detected yet: run cluster detect ${name} first.`, 'name');
      return shapeToMachine(detected, target);
    },
    async preflight(name: string) {
      const { target } = need(name);
      stageSlurmEngine(target, options.bundledEngineDir);
      return slurmPreflight(run, target, options.preflight);
    },
    /** The script a spec runs as (nothing written, nothing submitted). */
    script(name: string, rawSpec: unknown): string {
      const { target } = need(name);
      const parsed = RunSpecSchema.safeParse(rawSpec);
      if (!parsed.success)
        throw new ApiError('bad_request', `spec: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`, 'spec');
      const spec = parsed.data;
      return buildSbatchScript(target, {
        runId: spec.runId,
        strategy: spec.strategy,
        files: jobFiles(target, spec.runId),
        nodes: spec.nodes,
      });
    },
  };
}

export type SlurmService = ReturnType<typeof createSlurmService>;
