// The three small files a multi-node launch needs, as text: DeepSpeed's hostfile, an ssh_config
// that carries each host's user/port/key (so pdsh, our pre-flight and detection all reach a host
// the same way), and the environment file DeepSpeed exports on every rank.
import { ApiError, type Cluster } from '../../contract';

/** DeepSpeed's hostfile: one `host slots=N` line per host (runner.py: `^(\S+)\s+slots=(\d+)`). */
export function hostfileText(cluster: Cluster): string {
  return cluster.hosts.map((h) => `${h.host} slots=${h.slots}`).join('\n') + '\n';
}

/** A value for ssh_config: double-quoted when it has a space (the data folder may); a quote or line break cannot be written. */
function configWord(value: string): string {
  if (/["\r\n]/.test(value))
    throw new ApiError(
      'bad_path',
      `${JSON.stringify(value)} cannot go into an ssh_config (it holds a quote or a line break); use a data folder with a plain path.`,
    );
  return /\s/.test(value) ? `"${value}"` : value;
}

export interface SshConfigOptions {
  knownHostsFile: string;
  connectTimeoutSeconds?: number;
}

/**
 * One `Host` block per host. BatchMode: never prompt (a GUI has no terminal); accept-new: trust a
 * host key on first contact and refuse a changed one, kept in the app's own known_hosts.
 * All values were matched against strict patterns by the contract, so they are plain words.
 */
export function sshConfigText(cluster: Cluster, options: SshConfigOptions): string {
  const lines = ['# Written by Offload Studio for cluster ' + cluster.name + '; regenerated before every use.'];
  for (const h of cluster.hosts) {
    lines.push(`Host ${h.host}`, `  HostName ${h.host}`, `  Port ${h.sshPort}`);
    if (h.sshUser) lines.push(`  User ${h.sshUser}`);
    if (cluster.identityFile) lines.push(`  IdentityFile ${cluster.identityFile}`, '  IdentitiesOnly yes');
    lines.push(
      '  BatchMode yes',
      `  ConnectTimeout ${options.connectTimeoutSeconds ?? 8}`,
      '  StrictHostKeyChecking accept-new',
      `  UserKnownHostsFile ${configWord(options.knownHostsFile)}`,
      '  LogLevel ERROR',
    );
  }
  return lines.join('\n') + '\n';
}

/** DeepSpeed's .deepspeed_env format: KEY=VALUE lines, exported on every rank by the pdsh runner. */
export function deepspeedEnvText(cluster: Cluster): string {
  const entries = Object.entries(cluster.env ?? {});
  return entries.map(([k, v]) => `${k}=${v}`).join('\n') + (entries.length ? '\n' : '');
}
