// The multi-node launch is DeepSpeed's own: `deepspeed --hostfile …` with the pdsh launcher
// (DeepSpeed's default multi-node launcher). This builds its argument vector and the files it reads;
// the engine service spawns it (file + args, shell: false) and reads the runner's JSON lines as usual.
import fs from 'node:fs';
import path from 'node:path';
import type { Cluster, Launch } from '../../contract';
import { deepspeedEnvText, hostfileText, sshConfigText } from './files';
import { defaultEngineDir } from './private-dir';

export interface MultiNodeLaunchOptions {
  /** Folder for the hostfile, ssh_config and env file (e.g. <dataDir>/clusters/<name>). */
  workDir: string;
  /** The head node's interpreter. pdsh runs `sys.executable` of the launcher on every host, so this
   * path must exist on every host too (pre-flight checks it). */
  python: string;
  /** The app's known_hosts for the cluster (StrictHostKeyChecking accept-new). */
  knownHostsFile: string;
  /** Script inside the cluster's engine folder (default bench.py). */
  script?: string;
}

/** Pure: computes the launch; `writeLaunchFiles` puts its files on disk. */
export function buildMultiNodeLaunch(cluster: Cluster, specPath: string, options: MultiNodeLaunchOptions): Launch {
  const engineDir = cluster.engineDir ?? defaultEngineDir();
  const hostfilePath = path.join(options.workDir, 'hostfile');
  const sshConfigPath = path.join(options.workDir, 'ssh_config');
  const envFilePath = path.join(options.workDir, 'deepspeed_env');
  const slots = cluster.hosts.map((h) => h.slots);
  const uniformSlots = slots.every((s) => s === slots[0]);
  const ports = cluster.hosts.map((h) => h.sshPort);
  const uniformPort = ports.every((p) => p === ports[0]);

  const args = ['-u', '-m', 'deepspeed.launcher.runner', '--hostfile', hostfilePath, '--num_nodes', String(cluster.hosts.length)];
  // --num_gpus takes the first N slots of EVERY node: only say it when all nodes have the same
  // count; otherwise the hostfile's slots=N per host is the truth.
  if (uniformSlots) args.push('--num_gpus', String(slots[0]));
  args.push('--master_addr', cluster.masterAddr, '--master_port', String(cluster.masterPort));
  // DeepSpeed appends `-p PORT` to pdsh's ssh line; per-host ports come from ssh_config instead.
  if (uniformPort && ports[0] !== 22) args.push('--ssh_port', String(ports[0]));
  // pdsh is the default; said explicitly so the command reads the same in a report.
  args.push('--launcher', 'pdsh');
  // DeepSpeed's own check runs `ssh <first host> hostname` WITHOUT our ssh_config (so it would miss
  // the host's user/port/key); cluster/preflight runs the same check through it, for every host.
  args.push('--no_ssh_check');
  args.push(path.posix.join(engineDir, options.script ?? 'bench.py'), '--spec', specPath);

  const env: Record<string, string> = {
    PDSH_RCMD_TYPE: 'ssh',
    // pdsh's default is "-2 -a -x -l%u %h": its -l would override the User in our config.
    PDSH_SSH_ARGS: `-a -x -F ${sshConfigPath} %h`,
    // Absolute, so DeepSpeed reads exactly this file (it joins the name onto ~ and '.').
    DS_ENV_FILE: envFilePath,
    PYTHONUNBUFFERED: '1',
  };
  return {
    file: options.python,
    args,
    env,
    hostfileText: hostfileText(cluster),
    hostfilePath,
    sshConfigText: sshConfigText(cluster, { knownHostsFile: options.knownHostsFile }),
    sshConfigPath,
    envFileText: deepspeedEnvText(cluster),
    envFilePath,
    // pdsh runs `cd <launcher cwd>` on every host: the engine folder is the one path we know is there.
    cwd: engineDir,
    launcher: 'pdsh',
  };
}

export function writeLaunchFiles(launch: Launch): void {
  for (const [file, text] of [
    [launch.hostfilePath, launch.hostfileText],
    [launch.sshConfigPath, launch.sshConfigText],
    [launch.envFilePath, launch.envFileText],
  ] as const) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode: 0o600 }); // ssh refuses a config others can write
  }
}
