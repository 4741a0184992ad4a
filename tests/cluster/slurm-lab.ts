// Test-only Slurm: Debian's munged, slurmctld and slurmd, started by the test in a throwaway folder
// (its own munge key and socket, config, state and spool) and stopped by it. No systemd, no
// cgroups: proctrack/linuxproc, task/none. Each node is one slurmd started as `slurmd -N NAME`
// (the node's name need not be the host's), optionally inside a network namespace so two nodes
// have two addresses (tests/cluster/netns-hosts.ts). Needs root (slurmd runs jobs as their user).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface LabNode {
  name: string;
  addr: string;
  /** argv prefix that runs a command where this node lives (a network namespace), or none. */
  prefix?: string[];
  cpus?: number;
}

export interface SlurmLab {
  dir: string;
  conf: string;
  /** Environment for Slurm's client commands (and the app) to reach this controller. */
  env: Record<string, string>;
  partition: string;
  /** argv prefix where the controller runs (client commands must run there too). */
  prefix: string[];
  stop(): void;
}

const BINARIES = [
  '/usr/sbin/munged',
  '/usr/sbin/slurmctld',
  '/usr/sbin/slurmd',
  '/usr/bin/sbatch',
  '/usr/bin/scontrol',
  '/usr/bin/squeue',
  '/usr/bin/scancel',
];

/** Why Slurm cannot run here, or null when it can. */
export function slurmUnavailable(): string | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'needs root (slurmd runs jobs as their user)';
  const missing = BINARIES.filter((b) => !fs.existsSync(b));
  if (missing.length) return `${missing.join(', ')} not installed (apt-get install slurmctld slurmd slurm-client munge)`;
  return null;
}

function runOk(argv: string[], env?: Record<string, string>): string {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

async function until(what: string, test: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (test()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function startSlurmLab(options: { nodes: LabNode[]; controllerAddr: string; controllerPrefix?: string[] }): Promise<SlurmLab> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-slurm-'));
  fs.chmodSync(dir, 0o755); // munge's socket folder must be reachable by every user
  const prefix = options.controllerPrefix ?? [];
  // Ports of our own, per process: two suites at once must not meet each other's daemons.
  const base = 20000 + (process.pid % 2000) * 4;
  const munge = path.join(dir, 'munge');
  fs.mkdirSync(munge, { mode: 0o755 });
  for (const sub of ['state', 'spool', 'log', ...options.nodes.map((n) => path.join('spool', n.name))]) fs.mkdirSync(path.join(dir, sub));
  const socket = path.join(munge, 'socket');
  const conf = path.join(dir, 'slurm.conf');
  const partition = 'lab';
  fs.writeFileSync(
    conf,
    [
      'ClusterName=offloadlab',
      `SlurmctldHost=${os.hostname()}(${options.controllerAddr})`,
      `SlurmctldPort=${base}`,
      `SlurmdPort=${base + 1}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      `AuthInfo=socket=${socket}`,
      'CredType=cred/munge',
      `StateSaveLocation=${path.join(dir, 'state')}`,
      `SlurmdSpoolDir=${path.join(dir, 'spool', '%n')}`,
      `SlurmctldPidFile=${path.join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${path.join(dir, 'slurmd-%n.pid')}`,
      `SlurmctldLogFile=${path.join(dir, 'log', 'slurmctld.log')}`,
      `SlurmdLogFile=${path.join(dir, 'log', 'slurmd-%n.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/backfill',
      'MpiDefault=none',
      'ReturnToService=2',
      // Finished jobs stay visible to scontrol (there is no accounting database here).
      'MinJobAge=600',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      'KillWait=3',
      'OverTimeLimit=0',
      'InactiveLimit=0',
      'SlurmctldTimeout=30',
      'SlurmdTimeout=30',
      ...options.nodes.map((n) => `NodeName=${n.name} NodeAddr=${n.addr} CPUs=${n.cpus ?? 2} RealMemory=2000 State=UNKNOWN`),
      `PartitionName=${partition} Nodes=${options.nodes.map((n) => n.name).join(',')} Default=YES MaxTime=30 State=UP`,
      // A partition that takes jobs and starts none: what a queue that never frees looks like.
      `PartitionName=held Nodes=${options.nodes.map((n) => n.name).join(',')} MaxTime=30 State=DOWN`,
      '',
    ].join('\n'),
  );
  const env = { SLURM_CONF: conf };
  const daemons: ChildProcess[] = [];
  const lab: SlurmLab = {
    dir,
    conf,
    env,
    partition,
    prefix,
    stop() {
      // Jobs a failed test left behind (their slurmstepd outlives slurmd): cancelled on this controller.
      const ids = spawnSync(prefix[0] ?? 'squeue', [...prefix.slice(1), ...(prefix.length ? ['squeue'] : []), '-h', '-o', '%i'], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      }).stdout;
      const jobs = (ids ?? '').split('\n').filter((id) => /^[0-9_]+$/.test(id));
      if (jobs.length) {
        spawnSync(prefix[0] ?? 'scancel', [...prefix.slice(1), ...(prefix.length ? ['scancel'] : []), '--full', ...jobs], {
          env: { ...process.env, ...env },
        });
        spawnSync('sleep', ['2']);
      }
      for (const d of daemons) if (d.exitCode === null && d.signalCode === null) d.kill('SIGTERM');
      // The daemons we started wrote their pids; jobs' leftovers are their children.
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && daemons.some((d) => d.exitCode === null && d.signalCode === null)) spawnSync('sleep', ['0.1']);
      for (const d of daemons) if (d.exitCode === null && d.signalCode === null) d.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const start = (argv: string[], log: string) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'log', log), 'w')],
    });
    daemons.push(child);
    return child;
  };
  try {
    runOk(['/usr/sbin/mungekey', '-c', '-k', path.join(munge, 'munge.key'), '-b', '1024']);
    fs.chmodSync(path.join(munge, 'munge.key'), 0o400);
    start(
      [
        '/usr/sbin/munged',
        '-F',
        '-f',
        `--socket=${socket}`,
        `--key-file=${path.join(munge, 'munge.key')}`,
        `--log-file=${path.join(munge, 'munged.log')}`,
        `--pid-file=${path.join(munge, 'munged.pid')}`,
        `--seed-file=${path.join(munge, 'seed')}`,
      ],
      'munged.out',
    );
    await until('munged', () => fs.existsSync(socket), 10_000);
    // -D: in the foreground (ours to stop); -i: ignore state a previous controller might have left.
    start([...prefix, '/usr/sbin/slurmctld', '-D', '-i', '-f', conf], 'slurmctld.out');
    for (const n of options.nodes) start([...(n.prefix ?? []), '/usr/sbin/slurmd', '-D', '-N', n.name, '-f', conf], `slurmd-${n.name}.out`);
    const idle = () => {
      const r = spawnSync(
        prefix[0] ?? 'sinfo',
        [...prefix.slice(1), ...(prefix.length ? ['sinfo'] : []), '-h', '-N', '-p', partition, '-o', '%N %t'],
        {
          encoding: 'utf8',
          env: { ...process.env, ...env },
        },
      );
      const lines = (r.stdout ?? '').trim().split('\n').filter(Boolean);
      return lines.length === options.nodes.length && lines.every((l) => /\bidle$/.test(l));
    };
    await until(`every slurmd to register idle (logs in ${dir}/log)`, idle, 30_000);
    return lab;
  } catch (error) {
    const logs = ['slurmctld.log', ...options.nodes.map((n) => `slurmd-${n.name}.log`)]
      .map((f) => {
        try {
          return `--- ${f}\n${fs
            .readFileSync(path.join(dir, 'log', f), 'utf8')
            .split('\n')
            .slice(-15)
            .join('\n')}`;
        } catch {
          return '';
        }
      })
      .join('\n');
    lab.stop();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
}
