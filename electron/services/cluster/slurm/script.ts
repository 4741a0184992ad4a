// One run as one sbatch script the user can read: #SBATCH lines from the target, the user's setup
// lines, and srun (one process) or DeepSpeed's launcher with `--launcher slurm` (several ranks:
// it calls srun itself). Every value of ours is single-quoted; the setup lines are the user's own shell.
import path from 'node:path';
import type { SlurmTarget } from '../../../contract';

export interface JobFiles {
  /** The run's folder on the shared filesystem. */
  runDir: string;
  specFile: string;
  scriptFile: string;
  /** The runner's stdout: its JSON lines (and the launcher's own words). */
  stdoutFile: string;
  stderrFile: string;
  /** The batch script's exit status, written by the script when the launcher returns. */
  exitFile: string;
  hostfile: string;
}

export function jobFiles(target: SlurmTarget, runId: string): JobFiles {
  const runDir = path.posix.join(target.workDir, 'runs', runId);
  return {
    runDir,
    specFile: path.posix.join(runDir, 'spec.json'),
    scriptFile: path.posix.join(runDir, 'job.sbatch'),
    stdoutFile: path.posix.join(runDir, 'stdout.jsonl'),
    stderrFile: path.posix.join(runDir, 'stderr.log'),
    exitFile: path.posix.join(runDir, 'exit-code'),
    hostfile: path.posix.join(runDir, 'hostfile'),
  };
}

export function engineDirOf(target: SlurmTarget): string {
  return target.engineDir ?? path.posix.join(target.workDir, 'engine');
}

/** POSIX single quotes: the value is one word, nothing in it is interpreted. */
export function shq(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The #SBATCH lines every job of the target carries (also used by pre-flight's tiny jobs). */
export function sbatchHeader(
  target: SlurmTarget,
  o: { jobName: string; stdoutFile: string; stderrFile: string; nodes?: number; timeMinutes?: number },
): string[] {
  const nodes = o.nodes ?? target.nodes;
  const tasksPerNode = Math.max(1, target.gpusPerNode);
  const lines = [
    `--job-name=${o.jobName}`,
    `--partition=${target.partition}`,
    ...(target.account ? [`--account=${target.account}`] : []),
    ...(target.qos ? [`--qos=${target.qos}`] : []),
    `--time=${o.timeMinutes ?? target.timeLimitMinutes}`,
    `--nodes=${nodes}`,
    `--ntasks-per-node=${tasksPerNode}`,
    ...(target.gpusPerNode > 0 ? [`--gres=gpu:${target.gpuType ? `${target.gpuType}:` : ''}${target.gpusPerNode}`] : []),
    ...(target.constraint ? [`--constraint=${target.constraint}`] : []),
    ...(target.cpusPerTask ? [`--cpus-per-task=${target.cpusPerTask}`] : []),
    ...(target.memPerNodeMiB ? [`--mem=${target.memPerNodeMiB}M`] : []),
    `--output=${o.stdoutFile}`,
    `--error=${o.stderrFile}`,
    // A measurement that fails with its node is recorded as failed (node_failure), not rerun behind the
    // app's back into a truncated output file (Slurm requeues batch jobs by default).
    '--no-requeue',
  ];
  return lines.map((l) => `#SBATCH ${l}`);
}

/** The environment part every job shares: the user's setup lines, the target's variables. */
export function environmentLines(target: SlurmTarget): string[] {
  return [
    // A pid of the app's machine means nothing on a compute node (the runner's parent watch would end it).
    'unset OFFLOAD_STUDIO_APP_PID',
    ...(target.setup?.length ? ["# the target's setup lines, as written", ...target.setup] : []),
    ...Object.entries(target.env ?? {}).map(([k, v]) => `export ${k}=${shq(v)}`),
    'export PYTHONUNBUFFERED=1',
  ];
}

export interface ScriptInput {
  runId: string;
  strategy: string;
  files: JobFiles;
  /** The spec's own nodes and GPUs per node where it names them; else the target's. */
  nodes?: number;
  /** A job this one waits for (a sweep submitted as a dependency chain). */
  afterJob?: string;
}

export function buildSbatchScript(target: SlurmTarget, input: ScriptInput): string {
  const { files } = input;
  const nodes = input.nodes ?? target.nodes;
  const gpus = target.gpusPerNode;
  const engineDir = engineDirOf(target);
  const bench = path.posix.join(engineDir, 'bench.py');
  const py = shq(target.pythonPath);
  const ranks = nodes * Math.max(1, gpus);
  const launch =
    ranks === 1
      ? [`srun --ntasks=1 --nodes=1 ${py} -u ${shq(bench)} --spec ${shq(files.specFile)}`]
      : [
          // DeepSpeed's launcher reads the nodes from a hostfile; the job's own node list is the truth.
          'hosts=$(scontrol show hostnames "$SLURM_JOB_NODELIST")',
          "first=${hosts%%$'\\n'*}",
          // The first node's address as Slurm knows it (a NodeAddr may differ from the node's name).
          'MASTER_ADDR=$(scontrol -o show node "$first" | sed -n \'s/.* NodeAddr=\\([^ ]*\\).*/\\1/p\')',
          'export MASTER_ADDR="${MASTER_ADDR:-$first}"',
          `export MASTER_PORT=${target.masterPort}`,
          `printf '%s slots=${Math.max(1, gpus)}\\n' $hosts > ${shq(files.hostfile)}`,
          [
            `${py} -u -m deepspeed.launcher.runner`,
            `--hostfile ${shq(files.hostfile)}`,
            `--num_nodes ${nodes}`,
            ...(gpus > 0 ? [`--num_gpus ${gpus}`] : []),
            '--master_addr "$MASTER_ADDR"',
            `--master_port ${target.masterPort}`,
            '--launcher slurm',
            // One word with '=': argparse reads a separate value that starts with '--' as an option.
            shq(`--launcher_args=--ntasks-per-node=${Math.max(1, gpus)}`),
            '--no_ssh_check',
            `${shq(bench)} --spec ${shq(files.specFile)}`,
          ].join(' \\\n  '),
        ];
  return [
    '#!/bin/bash',
    `# Offload Studio: run ${input.runId} (${input.strategy}) on the Slurm target '${target.name}'.`,
    `# Submit it yourself with: sbatch ${files.scriptFile}`,
    ...sbatchHeader(target, { jobName: `os-${input.runId}`, stdoutFile: files.stdoutFile, stderrFile: files.stderrFile, nodes }),
    ...(input.afterJob ? [`#SBATCH --dependency=afterany:${input.afterJob}`] : []),
    '',
    ...environmentLines(target),
    `cd ${shq(engineDir)}`,
    '',
    ...launch,
    'status=$?',
    `echo "$status" > ${shq(files.exitFile)}`,
    'exit "$status"',
    '',
  ].join('\n');
}

/**
 * A sweep as one job array: task i runs run i's own script (its #SBATCH lines are comments to bash;
 * the array's header asks for the resources, the same target for every run) with its output in the
 * run's folder, as when that run is submitted alone.
 */
export function buildArrayScript(
  target: SlurmTarget,
  input: { sweepId: string; runs: { runId: string; files: JobFiles }[]; nodes?: number; arrayDir: string },
): string {
  const last = input.runs.length - 1;
  return [
    '#!/bin/bash',
    `# Offload Studio: sweep ${input.sweepId} (${input.runs.length} runs) as one job array on the Slurm target '${target.name}'.`,
    ...sbatchHeader(target, {
      jobName: `os-${input.sweepId}`,
      stdoutFile: path.posix.join(input.arrayDir, 'task-%a.out'),
      stderrFile: path.posix.join(input.arrayDir, 'task-%a.out'),
      nodes: input.nodes,
    }),
    `#SBATCH --array=0-${last}`,
    '',
    'case "$SLURM_ARRAY_TASK_ID" in',
    ...input.runs.map(
      (r, i) => `  ${i}) exec bash ${shq(r.files.scriptFile)} > ${shq(r.files.stdoutFile)} 2> ${shq(r.files.stderrFile)} ;;`,
    ),
    '  *) echo "no run for array task $SLURM_ARRAY_TASK_ID" >&2; exit 2 ;;',
    'esac',
    '',
  ].join('\n');
}
