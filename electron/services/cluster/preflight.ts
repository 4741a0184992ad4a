// Pre-flight of a multi-node run: every host reachable over ssh (through the same ssh_config the
// launch uses), its Python present, and the same torch / DeepSpeed / runner as the head node.
// One row per (host, check), each with what is wrong and the fix, so the UI shows a table.
import { ABSOLUTE_PATH_PATTERN, type Cluster, type PreflightRow } from '../../contract';
import { execFileWithInput, lastJsonObject, runSsh, type ExecResult } from './ssh';
import { isRunnerFile, readSnippet } from './snippets';
import { defaultEngineDir } from './private-dir';

export interface Versions {
  hostname?: string;
  python?: string;
  executable?: string;
  torch: string | null;
  deepspeed: string | null;
  torchError?: string | null;
  deepspeedError?: string | null;
  runnerHash: string | null;
  runnerFiles?: string[];
  runnerMissing?: string[];
  engineDirExists?: boolean;
  headPythonExists?: boolean;
}

export interface PreflightOptions {
  sshConfigPath: string;
  headPython: string;
  /** The bundled runner (resources/engine) on this machine: the reference every host must match. */
  bundledEngineDir: string;
  timeoutMs?: number;
}

export const HEAD = '(this machine)';

function sshFailure(r: ExecResult): string {
  if (r.spawnError) return `ssh could not start: ${r.spawnError}`;
  if (r.timedOut) return 'no answer within the timeout';
  return (r.stderr.trim().split('\n').pop() || `ssh exited with ${r.code}`).slice(0, 400);
}

async function localVersions(
  script: string,
  python: string,
  engineDir: string,
  timeoutMs: number,
  files: string[] = [],
): Promise<Versions | string> {
  const r = await execFileWithInput(python, ['-', engineDir, python, ...files], script, timeoutMs);
  const v = lastJsonObject(r.stdout);
  if (r.code !== 0 || !v) return r.spawnError ?? (r.stderr.trim().split('\n').pop() || `exited with ${r.code}`);
  return v as unknown as Versions;
}

export async function preflight(cluster: Cluster, options: PreflightOptions): Promise<PreflightRow[]> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const engineDir = cluster.engineDir ?? defaultEngineDir();
  const rows: PreflightRow[] = [];
  const row = (host: string, check: PreflightRow['check'], ok: boolean, detail: string, fix: string | null = null) =>
    rows.push({ host, check, ok, detail, fix: ok ? null : fix });

  // The head node: the launcher, the reference versions, and the runner at the cluster's path
  // (the launcher itself runs `cd <engineDir>` before anything else).
  const pdsh = await execFileWithInput('pdsh', ['-V'], null, 10_000);
  row(
    HEAD,
    'launcher',
    pdsh.spawnError === null,
    pdsh.spawnError === null
      ? `pdsh ${(pdsh.stdout + pdsh.stderr).trim().split('\n')[0]}`
      : "pdsh is not installed (DeepSpeed's default multi-node launcher)",
    'install pdsh on this machine: apt-get install pdsh (Debian/Ubuntu) or dnf install pdsh pdsh-rcmd-ssh',
  );
  const masterListed = cluster.hosts.some((h) => h.host === cluster.masterAddr);
  row(
    HEAD,
    'hostfile',
    true,
    `${cluster.hosts.length} node(s): ${cluster.hosts.map((h) => `${h.host} slots=${h.slots}`).join(', ')}; rank 0 runs on ${cluster.hosts[0].host}, master ${cluster.masterAddr}:${cluster.masterPort}${masterListed && cluster.masterAddr !== cluster.hosts[0].host ? ' (warning: master_addr is not the first host, where rank 0 runs)' : ''}`,
  );

  const versionsPy = readSnippet(options.bundledEngineDir, 'cluster_versions.py');
  const head = await localVersions(versionsPy, options.headPython, options.bundledEngineDir, timeoutMs);
  if (typeof head === 'string') {
    row(
      HEAD,
      'python',
      false,
      `${options.headPython}: ${head}`,
      'choose a working interpreter in Settings (the one holding torch and DeepSpeed)',
    );
    return rows;
  }
  row(
    HEAD,
    'python',
    head.torch !== null && head.deepspeed !== null,
    `${options.headPython}: Python ${head.python}, torch ${head.torch ?? 'missing'}, DeepSpeed ${head.deepspeed ?? 'missing'}`,
    'install torch and deepspeed into the head interpreter (Setup page)',
  );
  // Our own ssh calls quote every word, but DeepSpeed's pdsh launcher pastes the head interpreter's
  // path into each host's shell line as it is: a space there splits it.
  if (!ABSOLUTE_PATH_PATTERN.test(options.headPython))
    row(
      HEAD,
      'python',
      false,
      `${options.headPython} has a space or a character a shell reads specially; DeepSpeed's pdsh launcher puts the head interpreter's path unquoted on every host's command line, so a multi-node launch with it would fail`,
      'use an interpreter at a plain path (letters, digits, . _ - + /) that exists on every host, e.g. python3 -m venv /opt/offload-venv, and choose it in Settings',
    );
  // Only plain file names travel to the remote shell line.
  const runnerFiles = (head.runnerFiles ?? []).filter(isRunnerFile);
  const staged = await localVersions(versionsPy, options.headPython, engineDir, timeoutMs, runnerFiles);
  const stagedHash = typeof staged === 'string' ? null : staged.runnerHash;
  row(
    HEAD,
    'runner',
    stagedHash !== null && stagedHash === head.runnerHash,
    stagedHash === null
      ? `no runner at ${engineDir}`
      : stagedHash === head.runnerHash
        ? `runner at ${engineDir} matches this app (${head.runnerHash!.slice(0, 12)})`
        : `runner at ${engineDir} differs from this app's (${stagedHash.slice(0, 12)} ≠ ${head.runnerHash?.slice(0, 12)})`,
    `copy the app's runner there: \`npm run cli -- cluster stage ${cluster.name}\` in a clone of the app, \`npx offload-studio cluster stage ${cluster.name}\` where it is installed (or cp -r ${options.bundledEngineDir}/. ${engineDir}/)`,
  );

  await Promise.all(
    cluster.hosts.map(async (h) => {
      const hostRows: PreflightRow[] = [];
      const add = (check: PreflightRow['check'], ok: boolean, detail: string, fix: string | null = null) =>
        hostRows.push({ host: h.host, check, ok, detail, fix: ok ? null : fix });
      const who = `${h.sshUser ? h.sshUser + '@' : ''}${h.host}:${h.sshPort}`;
      const ssh = await runSsh(options.sshConfigPath, h.host, ['true'], null, timeoutMs);
      if (ssh.code !== 0) {
        add(
          'ssh',
          false,
          `${who}: ${sshFailure(ssh)}`,
          `set up key-based login: ssh-copy-id -p ${h.sshPort} ${h.sshUser ? h.sshUser + '@' : ''}${h.host}${cluster.identityFile ? ` (key ${cluster.identityFile})` : ''}; check the host name, port and that sshd runs`,
        );
        rows.push(...hostRows);
        return;
      }
      add('ssh', true, `${who} reachable, key-based login works`);
      const r = await runSsh(
        options.sshConfigPath,
        h.host,
        [h.pythonPath, '-', engineDir, options.headPython, ...runnerFiles],
        versionsPy,
        timeoutMs,
      );
      const v = lastJsonObject(r.stdout) as unknown as Versions | null;
      if (r.code !== 0 || !v) {
        add(
          'python',
          false,
          `${h.pythonPath}: ${sshFailure(r)}`,
          `install Python there or correct the host's pythonPath (now ${h.pythonPath})`,
        );
        rows.push(...hostRows);
        return;
      }
      const headPathOk = v.headPythonExists === true;
      add(
        'python',
        headPathOk,
        `${h.pythonPath}: Python ${v.python}${headPathOk ? '' : `; but ${options.headPython} (the head's interpreter, which pdsh runs on every host) is missing here`}`,
        `make ${options.headPython} exist on ${h.host} (same venv path on every host, or a symlink)`,
      );
      add(
        'torch',
        v.torch !== null && v.torch === head.torch,
        `torch ${v.torch ?? `missing (${v.torchError})`}; head has ${head.torch}`,
        `install torch==${head.torch} on ${h.host}`,
      );
      add(
        'deepspeed',
        v.deepspeed !== null && v.deepspeed === head.deepspeed,
        `DeepSpeed ${v.deepspeed ?? 'missing'}; head has ${head.deepspeed}`,
        `install deepspeed==${head.deepspeed} on ${h.host}`,
      );
      const runnerOk = v.runnerHash !== null && v.runnerHash === head.runnerHash;
      add(
        'runner',
        runnerOk,
        v.runnerHash === null
          ? `no runner at ${engineDir}`
          : v.runnerMissing?.length
            ? `runner at ${engineDir} lacks ${v.runnerMissing.join(', ')}`
            : runnerOk
              ? `runner matches (${v.runnerHash.slice(0, 12)})`
              : `runner at ${engineDir} differs (${v.runnerHash.slice(0, 12)} ≠ ${head.runnerHash?.slice(0, 12)})`,
        `copy the runner: rsync -a -e 'ssh -p ${h.sshPort}' ${options.bundledEngineDir}/ ${h.sshUser ? h.sshUser + '@' : ''}${h.host}:${engineDir}/`,
      );
      rows.push(...hostRows);
    }),
  );
  // Parallel probes finish in any order; the table reads in the cluster's host order.
  const order = new Map<string, number>([[HEAD, -1], ...cluster.hosts.map((h, i) => [h.host, i] as [string, number])]);
  return rows.sort((a, b) => order.get(a.host)! - order.get(b.host)!);
}
