// Before a run on a Slurm target: can we submit, does the partition exist, does Slurm accept what
// the target asks for (partition, account, QOS, gres, time: `sbatch --test-only`, Slurm's own
// message when not), and — with a tiny job on every node — does the engine's interpreter import
// torch and DeepSpeed there, and is the work folder the same folder on the nodes as here.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SlurmPreflightRow, SlurmTarget } from '../../../contract';
import { slurmMessage, type SlurmRunner } from './commands';
import { environmentLines, sbatchHeader, shq } from './script';
import { parseJobId, waitForJob } from './wait';

export interface SlurmPreflightOptions {
  /** How long the tiny job may take, queue included. */
  jobTimeoutMs?: number;
}

const row = (check: SlurmPreflightRow['check'], ok: boolean, detail: string, fix: string | null = null): SlurmPreflightRow => ({
  check,
  ok,
  detail,
  fix: ok ? null : fix,
});

export async function slurmPreflight(
  run: SlurmRunner,
  target: SlurmTarget,
  options: SlurmPreflightOptions = {},
): Promise<SlurmPreflightRow[]> {
  const rows: SlurmPreflightRow[] = [];
  const version = await run('sbatch', ['--version']);
  rows.push(
    row(
      'sbatch',
      version.code === 0,
      version.code === 0 ? version.stdout.trim() : slurmMessage(version),
      'Run the app on a login node of the cluster, where sbatch, squeue and scancel are on PATH (module load slurm on some sites).',
    ),
  );
  if (version.code !== 0) return rows;

  const part = await run('scontrol', ['-o', 'show', 'partition', target.partition]);
  const up = /\bState=UP\b/.test(part.stdout);
  rows.push(
    row(
      'partition',
      part.code === 0 && up,
      part.code !== 0
        ? `Slurm: ${slurmMessage(part)}`
        : up
          ? `partition ${target.partition} is up`
          : `partition ${target.partition} is not up (${/State=(\S+)/.exec(part.stdout)?.[1] ?? 'unknown'})`,
      'Pick a partition that `sinfo -s` lists as up, and save the target again.',
    ),
  );

  let workOk = true;
  try {
    fs.mkdirSync(target.workDir, { recursive: true });
    fs.accessSync(target.workDir, fs.constants.W_OK);
    rows.push(row('workdir', true, `${target.workDir} is writable here`));
  } catch (error) {
    workOk = false;
    rows.push(
      row(
        'workdir',
        false,
        `${target.workDir}: ${(error as Error).message}`,
        'Give a work folder on the shared filesystem that you can write (it holds specs, scripts and job output).',
      ),
    );
  }
  if (!workOk) return rows;

  const dir = path.join(target.workDir, 'preflight', `${Date.now()}-${crypto.randomBytes(3).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  const token = crypto.randomBytes(8).toString('hex');
  fs.writeFileSync(path.join(dir, 'token'), token);
  // Every node: the engine's imports, and the token written here read back there (and answered).
  const nodeScript = [
    '#!/bin/bash',
    'node="${SLURMD_NODENAME:-$(hostname)}"',
    `${shq(target.pythonPath)} -c 'import sys, torch, deepspeed; print("python", sys.version.split()[0], "torch", torch.__version__, "deepspeed", deepspeed.__version__)' > ${shq(dir)}/engine-"$node".txt 2>&1`,
    `cat ${shq(path.join(dir, 'token'))} > ${shq(dir)}/seen-"$node".txt 2>&1`,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'node.sh'), nodeScript, { mode: 0o755 });
  const script = [
    '#!/bin/bash',
    `# Offload Studio pre-flight of the Slurm target '${target.name}'.`,
    ...sbatchHeader(target, {
      jobName: 'os-preflight',
      stdoutFile: path.join(dir, 'job.out'),
      stderrFile: path.join(dir, 'job.out'),
      timeMinutes: Math.min(target.timeLimitMinutes, 10),
    }),
    ...environmentLines(target),
    `srun --ntasks-per-node=1 bash ${shq(path.join(dir, 'node.sh'))}`,
    '',
  ].join('\n');
  const scriptFile = path.join(dir, 'preflight.sbatch');
  fs.writeFileSync(scriptFile, script);

  // sbatch --test-only: Slurm checks partition, account, QOS, gres and time without queueing anything.
  const test = await run('sbatch', ['--test-only', scriptFile]);
  rows.push(
    row(
      'request',
      test.code === 0,
      test.code === 0 ? `Slurm accepts the request: ${slurmMessage(test)}` : `Slurm refuses the request: ${slurmMessage(test)}`,
      'Fix what Slurm names (partition, account, QOS, gres or time limit; `sacctmgr show assoc user=$USER` lists your accounts), save the target and run preflight again.',
    ),
  );
  if (test.code !== 0) return rows;

  const submit = await run('sbatch', ['--parsable', scriptFile]);
  const jobId = submit.code === 0 ? parseJobId(submit.stdout) : null;
  if (!jobId) {
    rows.push(
      row('engine', false, `sbatch refused the tiny job: ${slurmMessage(submit)}`, 'Fix what Slurm names and run preflight again.'),
    );
    return rows;
  }
  const ended = await waitForJob(run, jobId, {
    timeoutMs: options.jobTimeoutMs ?? 10 * 60_000,
    done: () => fs.existsSync(path.join(dir, 'job.out')),
  });
  if (!ended || !/^COMPLETED|^FAILED/.test(ended.state)) {
    if (!ended || !/^(COMPLETED|FAILED|CANCELLED|TIMEOUT)/.test(ended.state)) await run('scancel', [jobId]);
    rows.push(
      row(
        'engine',
        false,
        `the tiny job ${jobId} did not finish (${ended ? `${ended.state}${ended.reason ? `, ${ended.reason}` : ''}` : 'Slurm forgot it'})`,
        'Look at the queue (squeue -j ' + jobId + ') and run preflight when nodes are free.',
      ),
    );
    return rows;
  }
  const nodes = ended.nodes;
  const read = (f: string) => {
    try {
      return fs.readFileSync(path.join(dir, f), 'utf8').trim();
    } catch {
      return null;
    }
  };
  for (const node of nodes) {
    const engine = read(`engine-${node}.txt`);
    const seen = read(`seen-${node}.txt`);
    const shared = seen === token;
    rows.push(
      row(
        'shared',
        shared,
        shared
          ? `${node} reads ${target.workDir} as this machine writes it, and this machine reads what ${node} wrote`
          : seen === null
            ? `nothing ${node} wrote in ${dir} is visible here: ${target.workDir} is not shared with ${node}`
            : `${node} could not read the file written here (${seen.slice(0, 200)})`,
        `Use a work folder on the filesystem every node mounts at the same path (a home or project folder; not /tmp).`,
      ),
    );
    if (!shared) continue;
    // DeepSpeed prints its own warnings on import; the versions line is ours.
    const versions = engine?.split('\n').find((l) => l.startsWith('python ')) ?? null;
    const ok = versions !== null;
    rows.push(
      row(
        'engine',
        ok,
        ok
          ? `${node}: ${versions}`
          : `${node}: ${target.pythonPath} cannot import torch and DeepSpeed: ${(engine ?? 'no output').split('\n').slice(-2).join(' ')}`,
        `Install the engine there (${target.pythonPath} -m pip install -r <engine>/requirements.txt), or add the module/conda line that provides it to the target's setup.`,
      ),
    );
  }
  if (nodes.length === 0) rows.push(row('shared', false, `job ${jobId} ran on no node Slurm names`, 'Run preflight again.'));
  return rows;
}
