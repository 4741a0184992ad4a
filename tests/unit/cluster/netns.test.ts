// Multi-node for real, on this machine: two "hosts" in network namespaces (127.0.9.1 and
// 127.0.9.2, each with its own sshd and a throwaway key), driven through the real CLI running
// inside the first namespace (the head node, as on a real cluster): pre-flight, hardware
// detection over ssh, and a DeepSpeed job launched by DeepSpeed's own pdsh launcher across both.
// Needs root, iproute2, openssh-server/client and pdsh (.ci/run installs them); skips otherwise.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineVenvs, venvPython } from '../../../electron/services/environment';
import { isRunnerFile } from '../../../electron/services/cluster/snippets';
import { createNetnsLab, netnsUnavailable, type NetnsLab } from '../../cluster/netns-hosts';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
// the engine venv scripts/setup-engine-venv.sh made (the app's own discovery), not a fixed folder name
const [engineVenv] = engineVenvs();
const VENV_PYTHON = process.env.OFFLOAD_STUDIO_TEST_PYTHON ?? (engineVenv ? venvPython(engineVenv) : 'no engine venv');
const hasDeepSpeed =
  fs.existsSync(VENV_PYTHON) &&
  spawnSync(VENV_PYTHON, ['-c', 'import deepspeed.launcher.runner'], { stdio: 'ignore', timeout: 120_000 }).status === 0;
const skipReason =
  netnsUnavailable() ?? (hasDeepSpeed ? null : `no DeepSpeed interpreter at ${VENV_PYTHON} (run scripts/setup-engine-venv.sh)`);
if (skipReason) console.log(`[netns multi-node test] skipped: ${skipReason}`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runIn(
  lab: NetnsLab,
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(lab.inNs(lab.hosts[0])[0], [...lab.inNs(lab.hosts[0]).slice(1), ...argv], {
      cwd: options.cwd ?? root,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(skipReason !== null)('multi-node over network namespaces', () => {
  let lab: NetnsLab;
  let dataDir: string;
  let engineDir: string;
  const cli = (args: string[], timeoutMs?: number) =>
    runIn(lab, [path.join(root, 'node_modules/.bin/tsx'), 'electron/cli/main.ts', ...args, '--data-dir', dataDir], { timeoutMs });

  beforeAll(async () => {
    lab = await createNetnsLab(2);
    dataDir = path.join(lab.dir, 'data');
    engineDir = path.join(lab.dir, 'engine');
    const cluster = {
      name: 'lab',
      hosts: lab.hosts.map((h) => ({ host: h.address, slots: 1, sshUser: 'root', sshPort: h.sshPort, pythonPath: VENV_PYTHON })),
      masterAddr: lab.hosts[0].address,
      masterPort: 29517,
      identityFile: lab.identityFile,
      engineDir,
      env: { GLOO_SOCKET_IFNAME: lab.ifname },
      interconnect: { kind: 'ethernet', gbitPerSecond: 10 },
    };
    // A second cluster that is wrong on purpose: a port with no sshd, and a missing interpreter.
    const broken = {
      ...cluster,
      name: 'broken',
      hosts: [
        { ...cluster.hosts[1], pythonPath: '/nonexistent/bin/python3' },
        { ...cluster.hosts[1], host: lab.hosts[0].address, sshPort: 2299 },
      ],
    };
    fs.writeFileSync(path.join(lab.dir, 'lab.json'), JSON.stringify(cluster));
    fs.writeFileSync(path.join(lab.dir, 'broken.json'), JSON.stringify(broken));
    for (const [args, what] of [
      [['settings', 'set', `pythonPath=${VENV_PYTHON}`], 'settings set'],
      [['cluster', 'save', path.join(lab.dir, 'lab.json')], 'cluster save lab'],
      [['cluster', 'save', path.join(lab.dir, 'broken.json')], 'cluster save broken'],
    ] as const) {
      const r = await cli([...args]);
      if (r.code !== 0) throw new Error(`${what} failed:\n${r.stdout}\n${r.stderr}`);
    }
  }, 120_000);

  afterAll(() => {
    lab?.destroy();
    // The cleanup is part of the contract of this test: nothing of ours may be left behind.
    const left = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
    for (const h of lab?.hosts ?? []) expect(left).not.toContain(h.ns);
  });

  it('pre-flight names what is missing where, before the runner is staged', async () => {
    const r = await cli(['cluster', 'preflight', 'lab', '--json']);
    const result = JSON.parse(r.stdout);
    expect(result.ok).toBe(false);
    const failing = result.rows.filter((x: { ok: boolean }) => !x.ok).map((x: { host: string; check: string }) => `${x.host}:${x.check}`);
    // No runner at the cluster's engine folder yet, on the head and on both hosts; all else is fine.
    expect(failing.sort()).toEqual(['(this machine):runner', '127.0.9.1:runner', '127.0.9.2:runner']);
    expect(result.rows.find((x: { host: string; check: string }) => x.host === '127.0.9.2' && x.check === 'runner').fix).toContain('rsync');
  }, 180_000);

  it('pre-flight passes on every host once the runner is staged (same torch, DeepSpeed, runner)', async () => {
    fs.mkdirSync(engineDir, { recursive: true });
    for (const f of fs.readdirSync(path.join(root, 'resources/engine')))
      if (isRunnerFile(f)) fs.copyFileSync(path.join(root, 'resources/engine', f), path.join(engineDir, f));
    fs.copyFileSync(path.join(root, 'tests/cluster/tiny_train.py'), path.join(engineDir, 'tiny_train.py'));
    const r = await cli(['cluster', 'preflight', 'lab', '--json']);
    const result = JSON.parse(r.stdout);
    expect(result.rows.filter((x: { ok: boolean }) => !x.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    const checks = result.rows.map((x: { host: string; check: string }) => `${x.host}:${x.check}`);
    for (const host of ['127.0.9.1', '127.0.9.2'])
      for (const check of ['ssh', 'python', 'torch', 'deepspeed', 'runner']) expect(checks).toContain(`${host}:${check}`);
  }, 180_000);

  it('pre-flight of a wrong cluster fails with the host and check named, and a fix', async () => {
    const r = await cli(['cluster', 'preflight', 'broken', '--json']);
    const result = JSON.parse(r.stdout);
    expect(result.ok).toBe(false);
    const bad = result.rows.filter((x: { ok: boolean }) => !x.ok);
    expect(bad).toContainEqual(expect.objectContaining({ host: '127.0.9.2', check: 'python', fix: expect.stringContaining('pythonPath') }));
    expect(bad).toContainEqual(
      expect.objectContaining({ host: '127.0.9.1', check: 'ssh', fix: expect.stringContaining('ssh-copy-id -p 2299') }),
    );
  }, 180_000);

  it('detects each host over ssh with the probe and stores it', async () => {
    const r = await cli(['cluster', 'detect', 'lab', '--json'], 240_000);
    const hosts = JSON.parse(r.stdout);
    expect(hosts.map((h: { host: string; ok: boolean }) => [h.host, h.ok])).toEqual([
      ['127.0.9.1', true],
      ['127.0.9.2', true],
    ]);
    const stored = JSON.parse(fs.readFileSync(path.join(dataDir, 'clusters.json'), 'utf8'));
    const lab = stored.clusters.find((c: { cluster: { name: string } }) => c.cluster.name === 'lab');
    expect(lab.detections).toHaveLength(2);
    expect(lab.detections[0].probe).not.toBeNull();
  }, 300_000);

  it('runs one DeepSpeed job across both namespaces through deepspeed --hostfile (pdsh)', async () => {
    const spec = path.join(lab.dir, 'spec.json');
    fs.writeFileSync(spec, '{}');
    const r = await cli(['cluster', 'launch', 'lab', '--spec', spec, '--json']);
    const launch = JSON.parse(r.stdout);
    expect(launch.hostfileText).toBe('127.0.9.1 slots=1\n127.0.9.2 slots=1\n');
    // The preview names the runner's bench.py; this test swaps in a three-step job to keep it short.
    const args = launch.args.map((a: string) => (a === path.join(engineDir, 'bench.py') ? path.join(engineDir, 'tiny_train.py') : a));
    const run = await runIn(lab, [launch.file, ...args], { env: launch.env, cwd: launch.cwd, timeoutMs: 400_000 });
    const results = run.stdout
      .split('\n')
      .map((l) => l.replace(/^[^:{]*:\s*/, '')) // pdsh prefixes each line with "host: "
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .filter((o) => o.type === 'result');
    if (results.length !== 2)
      throw new Error(`expected two ranks, exit ${run.code}:\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-6000)}`);
    expect(results.map((o) => o.rank).sort()).toEqual([0, 1]);
    expect(results.every((o) => o.worldSize === 2 && o.allReduce === 3)).toBe(true);
    // The two ranks really ran in different network namespaces (different "hosts").
    expect(new Set(results.map((o) => o.netns)).size).toBe(2);
    // both ranks finished; a non-zero exit now is the launcher's teardown (250 twice in CI before tiny_train.py ended with os._exit, as the runner does): say what it printed
    expect(run.code, `launcher exit ${run.code} after both ranks' results:\n${run.stderr.slice(-4000)}`).toBe(0);
  }, 420_000);
});
