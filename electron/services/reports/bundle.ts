// The reproduction bundle: per run its ds_config.json, spec.json, the launch command as run.sh,
// a hostfile on several nodes, and the runner version; a README that says how to rerun.
// Returned as a file list, written as a folder or a .zip by the caller.
import { HOST_PATTERN } from '../../contract';
import { samplesCsv } from './csv';
import { fmt, strategyName } from './format';
import type { ReportRun } from './types';
import type { ZipEntry } from './zip';
import { launchText, trainingLaunch } from './launch';

/** Text safe inside a shell comment or a file name: no control characters, no newlines. */
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ');
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'run';
const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `01-zero3-offload-r-20261203-141502-a1b2c3-2`: the whole run id, whose end (time, suffix, index)
 *  is what tells the runs of one sweep apart — its first 12 characters are the same for all of them. */
export function runFolderName(run: ReportRun, index: number): string {
  return `${String(index + 1).padStart(2, '0')}-${slug(run.summary.strategy)}-${slug(run.summary.id)}`;
}

/** The launcher line, as an argument list: deepspeed, torchrun (FSDP2), or a single python process. */
export function launchCommand(run: ReportRun): { argv: string[]; env: Record<string, string>; launcher: string } {
  const w = run.workload;
  const gpus = run.machine ? run.machine.gpus.length > 0 : true;
  const perNode = w.gpus;
  const script = ['"$ENGINE/bench.py"', '--spec', 'spec.json'];
  if (!gpus && w.worldSize <= 1)
    return {
      launcher: 'python',
      // One process without the launcher needs all five of these, or torch.distributed tries MPI discovery.
      env: { RANK: '0', LOCAL_RANK: '0', WORLD_SIZE: '1', MASTER_ADDR: '127.0.0.1', MASTER_PORT: '29500' },
      argv: ['python', '-u', ...script],
    };
  if (run.summary.engine === 'fsdp2') {
    const nodes =
      w.nodes > 1
        ? [
            '--nnodes',
            String(w.nodes),
            '--node_rank',
            '"${NODE_RANK:-0}"',
            '--rdzv_backend',
            'c10d',
            '--rdzv_endpoint',
            '"${MASTER_ADDR:?set MASTER_ADDR}:29500"',
          ]
        : [];
    return { launcher: 'torchrun', env: {}, argv: ['torchrun', ...nodes, '--nproc_per_node', String(perNode), ...script] };
  }
  const nodes = w.nodes > 1 ? ['--hostfile', 'hostfile', '--num_nodes', String(w.nodes)] : [];
  return {
    launcher: 'deepspeed',
    env: {},
    argv: ['deepspeed', ...nodes, '--num_gpus', String(perNode), '--bind_cores_to_rank', ...script],
  };
}

export function runScript(run: ReportRun): string {
  const { argv, env } = launchCommand(run);
  const s = run.summary;
  const lines = [
    '#!/usr/bin/env bash',
    `# Reruns Offload Studio run ${oneLine(s.id)}: ${oneLine(strategyName(s.strategy))}, ${oneLine(s.model)}, ${run.workload.worldSize} GPU(s) on ${run.workload.nodes} node(s).`,
    `# Runner version at the time: ${oneLine(run.versions.runner ?? 'unknown')}. See ../README.md.`,
    "# ENGINE: the folder that holds Offload Studio's bench.py (resources/engine in the app or in a checkout).",
    'set -euo pipefail',
    'cd "$(dirname "$0")"',
    'ENGINE="${OFFLOAD_STUDIO_ENGINE:-resources/engine}"',
    'if [ ! -f "$ENGINE/bench.py" ]; then echo "bench.py not found in $ENGINE: set OFFLOAD_STUDIO_ENGINE to Offload Studio\'s resources/engine folder" >&2; exit 2; fi',
    ...Object.entries(env).map(([k, v]) => `export ${k}="\${${k}:-${v}}"`),
  ];
  if (run.launchArgv) lines.push(`# The runner was started as: ${oneLine(run.launchArgv.map(shQuote).join(' '))}`);
  lines.push(...refusedHostLines(refusedHosts(run)));
  lines.push(`exec ${argv.join(' ')}`, '');
  return lines.join('\n');
}

/** A host the bundle would not write, and why (shown in run.sh and the README). */
interface RefusedHost {
  host: string;
  why: string;
}

const HOST_RULE = 'is not a host name or IPv4 address (letters, digits, dots, dashes; no leading dash)';
/** A refused host as shown: one line, and short, since it is whatever an imported file held. */
const shownHost = (h: string) => (h.length > 80 ? `${oneLine(h).slice(0, 80)}…` : oneLine(h));

/** The hosts of a multi-node run a hostfile must not hold. An imported run's spec.hosts is whatever
 *  its file said, and DeepSpeed's launcher runs `ssh <first host> hostname`: a host such as
 *  `-oProxyCommand=…` is an ssh option that runs a command. Held to the cluster contract's
 *  HOST_PATTERN, the rule every saved cluster host already meets. */
export function refusedHosts(run: ReportRun): RefusedHost[] {
  if (run.workload.nodes <= 1) return [];
  return run.hosts.filter((h) => !HOST_PATTERN.test(h)).map((h) => ({ host: h, why: HOST_RULE }));
}

/** DeepSpeed's hostfile, or null on one node or when a host was refused (the run.sh then stops). */
function hostfile(run: ReportRun): string | null {
  if (run.workload.nodes <= 1 || refusedHosts(run).length > 0) return null;
  const slots = run.workload.gpus;
  const hosts = run.hosts.length ? run.hosts : Array.from({ length: run.workload.nodes }, (_, i) => `node${i + 1}`);
  return hosts.map((h) => `${h} slots=${slots}`).join('\n') + '\n';
}

/** run.sh's lines when hosts were refused: say which and why, and stop before the launcher. */
function refusedHostLines(refused: RefusedHost[]): string[] {
  if (refused.length === 0) return [];
  const what = refused.map((r) => `'${shownHost(r.host)}' ${r.why}`).join('; ');
  const message = `hostfile left out: the run's host ${what}. Write a hostfile here with your nodes (one 'host slots=N' line each) and remove this line.`;
  return [`# ${oneLine(message)}`, `echo ${shQuote(`run.sh: ${oneLine(message)}`)} >&2; exit 2`];
}

function readme(runs: ReportRun[], folders: string[], generatedAt: Date, appVersion: string): string {
  const rows = runs.map((r, i) => {
    const { launcher } = launchCommand(r);
    return `| ${folders[i]} | ${oneLine(r.summary.id)} | ${oneLine(strategyName(r.summary.strategy))} | ${oneLine(r.summary.model)} | ${r.workload.worldSize} × ${r.workload.nodes} node(s) | ${launcher} | ${fmt(r.figures.tflopsPerGpu?.median)} |`;
  });
  return `# Offload Studio reproduction bundle

Made ${generatedAt.toISOString()} by Offload Studio ${appVersion}: ${runs.length} run(s).

Each folder reruns one run exactly as Offload Studio ran it:

- \`job.sbatch\` — for a run on a Slurm cluster, the batch script it was submitted as (\`sbatch job.sbatch\` there).
- \`spec.json\` — the run spec the runner was given (model shape, sequence length, batch, steps, seed, config).
- \`ds_config.json\` — the DeepSpeed config (absent for FSDP2 runs).
- \`run.sh\` — the launch command (\`deepspeed\`, \`torchrun\` for FSDP2, or one \`python -u\` process on a machine without GPUs).
- \`hostfile\` — only for runs on several nodes: one line per node, \`host slots=GPUs\`. Replace the names with your nodes.
- \`launch.txt\`, \`accelerate_config.yaml\` — for your own training with this ds_config: the \`deepspeed\`,
  \`torchrun\` and \`accelerate launch\` lines (your script takes \`--deepspeed ds_config.json\`, as HF Trainer does).
- \`your_ds_config.json\` — only for a run of your own config (\`run --ds-config\`, the Plan page's drop zone): your file as you gave it.
- \`runner-version.txt\` — the runner (resources/engine/bench.py) version, Python, torch and DeepSpeed versions of the original run.

## How to rerun

1. Install Offload Studio (or clone its repository) and a Python environment with the versions in
   \`runner-version.txt\` (the app's Setup page makes one; or \`bash scripts/setup-engine-venv.sh\`).
2. Point the scripts at the runner: \`export OFFLOAD_STUDIO_ENGINE=/path/to/offload-studio/resources/engine\`.
3. Activate that environment and run \`bash <folder>/run.sh\`. The runner prints one JSON line per step and
   a \`result\` line with the medians; compare them with the figures below.

| folder | run | strategy | model | GPUs | launcher | TFLOPS/GPU (median) |
|---|---|---|---|---|---|---|
${rows.join('\n')}
${refusedHostsSection(runs, folders)}`;
}

/** The README's account of hosts left out of hostfiles, or nothing when every host passed. */
function refusedHostsSection(runs: ReportRun[], folders: string[]): string {
  const lines = runs.flatMap((r, i) =>
    refusedHosts(r).map((h) => `- ${folders[i]}: host \`${shownHost(h.host).replace(/`/g, "'")}\` ${h.why}.`),
  );
  if (lines.length === 0) return '';
  return `
## Hosts left out

These runs' hostfiles were not written: a host of the original run could be read by ssh as an option
or a command. Their run.sh stops with this message until you write a hostfile with your nodes.

${lines.join('\n')}
`;
}

export function bundleEntries(
  runs: ReportRun[],
  options: { includeSamples?: boolean; generatedAt?: Date; appVersion?: string } = {},
): ZipEntry[] {
  const generatedAt = options.generatedAt ?? new Date();
  const appVersion = options.appVersion ?? '';
  const folders = runs.map(runFolderName);
  const entries: ZipEntry[] = [{ name: 'README.md', data: readme(runs, folders, generatedAt, appVersion) }];
  runs.forEach((run, i) => {
    const dir = folders[i];
    if (run.dsConfig != null) entries.push({ name: `${dir}/ds_config.json`, data: JSON.stringify(run.dsConfig, null, 2) + '\n' });
    entries.push({ name: `${dir}/spec.json`, data: JSON.stringify(run.spec ?? {}, null, 2) + '\n' });
    entries.push({ name: `${dir}/run.sh`, data: runScript(run), mode: 0o755 });
    // what the user's own training takes: the launch lines and an accelerate config for this ds_config,
    // and the user's own file byte for byte where the run came from one
    const launch = trainingLaunch(run);
    if (launch) {
      entries.push({ name: `${dir}/launch.txt`, data: launchText(launch.files) });
      entries.push({ name: `${dir}/accelerate_config.yaml`, data: launch.files.accelerateYaml });
      if (launch.userConfig) entries.push({ name: `${dir}/your_ds_config.json`, data: launch.userConfig.text });
    }
    const hosts = hostfile(run);
    if (hosts) entries.push({ name: `${dir}/hostfile`, data: hosts });
    // A Slurm run: the sbatch script it was submitted as (sbatch job.sbatch reruns it on that cluster).
    if (run.job?.script) entries.push({ name: `${dir}/job.sbatch`, data: run.job.script });
    const v = run.versions;
    entries.push({
      name: `${dir}/runner-version.txt`,
      data: `runner ${v.runner ?? 'unknown'}\npython ${v.python ?? 'unknown'}\ntorch ${v.torch ?? 'unknown'}\ndeepspeed ${v.deepspeed ?? 'n/a'}\ncuda ${v.cuda ?? 'n/a'}\ndriver ${v.driver ?? 'n/a'}\n`,
    });
    if (options.includeSamples) entries.push({ name: `${dir}/samples.csv`, data: samplesCsv([run]) });
  });
  return entries;
}
