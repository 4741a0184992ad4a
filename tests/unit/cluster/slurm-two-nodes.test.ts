// Two Slurm nodes for real: the network namespaces of the multi-node tests (tests/cluster/
// netns-hosts.ts) each run one slurmd (`slurmd -N node1|node2`, NodeAddr 127.0.9.1 / .2), the
// controller and the CLI run in the first (the login node). node2 also has a mount namespace of its own
// where one folder is a tmpfs: a work folder there is not shared. Pre-flight's tiny job runs on both nodes;
// a tiny training with the real runner runs on both through DeepSpeed's launcher with
// `--launcher slurm` (srun starts the ranks; gloo on CPU across the veth).
// Needs root, iproute2 and Debian's Slurm + munge (.ci/run installs them); skips otherwise.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineVenvs, venvPython } from '../../../electron/services/environment';
import { createNetnsLab, netnsUnavailable, type NetnsLab } from '../../cluster/netns-hosts';
import { slurmUnavailable, startSlurmLab, type SlurmLab } from '../../cluster/slurm-lab';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const [engineVenv] = engineVenvs();
const VENV_PYTHON = process.env.OFFLOAD_STUDIO_TEST_PYTHON ?? (engineVenv ? venvPython(engineVenv) : 'no engine venv');
const skipReason =
  slurmUnavailable() ??
  netnsUnavailable() ??
  (fs.existsSync(VENV_PYTHON) ? null : `no engine interpreter at ${VENV_PYTHON} (run scripts/setup-engine-venv.sh)`);
if (skipReason) console.log(`[slurm two-node test] skipped: ${skipReason}`);

function run(argv: string[]): void {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr || r.stdout}`);
}

describe.skipIf(skipReason !== null)('Slurm across two nodes (network namespaces)', () => {
  let net: NetnsLab;
  let lab: SlurmLab;
  let data: string;
  // node2's own mount namespace, where `unshared` is a tmpfs: a work folder that is not shared.
  let mnt: string;
  let unshared: string;

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const argv = [
        'nsenter',
        `--net=/run/netns/${net.hosts[0].ns}`,
        process.execPath,
        '--import',
        'tsx',
        'electron/cli/main.ts',
        ...args,
        '--data-dir',
        data,
      ];
      const child = spawn(argv[0], argv.slice(1), { cwd: root, env: { ...process.env, ...lab.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  beforeAll(async () => {
    net = await createNetnsLab(2);
    mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-slurm-mnt-'));
    unshared = path.join(mnt, 'unshared');
    fs.mkdirSync(unshared);
    // A persistent mount namespace (bound to a file on a private mount), with a tmpfs over `unshared`.
    const nsFile = path.join(mnt, 'ns', 'mnt');
    fs.mkdirSync(path.dirname(nsFile));
    run(['mount', '--bind', path.dirname(nsFile), path.dirname(nsFile)]);
    run(['mount', '--make-private', path.dirname(nsFile)]);
    fs.writeFileSync(nsFile, '');
    run(['unshare', `--mount=${nsFile}`, '--propagation', 'private', 'true']);
    run(['nsenter', `--mount=${nsFile}`, 'mount', '-t', 'tmpfs', 'tmpfs', unshared]);
    lab = await startSlurmLab({
      // nsenter joins the network namespace only: `ip netns exec` also remounts /sys, where slurmd
      // then finds no cgroup filesystem and refuses to start. node2 also lives in the mount namespace above.
      nodes: net.hosts.map((h, i) => ({
        name: `node${i + 1}`,
        addr: h.address,
        prefix: ['nsenter', `--net=/run/netns/${h.ns}`, ...(i === 1 ? [`--mount=${nsFile}`] : [])],
      })),
      controllerAddr: net.hosts[0].address,
      controllerPrefix: ['nsenter', `--net=/run/netns/${net.hosts[0].ns}`],
    });
    data = path.join(lab.dir, 'data');
    const target = path.join(lab.dir, 'pair.json');
    fs.writeFileSync(
      target,
      JSON.stringify({
        kind: 'slurm',
        name: 'pair',
        partition: lab.partition,
        timeLimitMinutes: 5,
        nodes: 2,
        gpusPerNode: 0,
        pythonPath: VENV_PYTHON,
        workDir: path.join(lab.dir, 'shared'),
        masterPort: 29531,
        env: { GLOO_SOCKET_IFNAME: net.ifname },
      }),
    );
    const saved = await cli(['cluster', 'save', target]);
    expect(saved.code, saved.stderr).toBe(0);
  }, 90_000);

  afterAll(() => {
    lab?.stop();
    net?.destroy();
    if (mnt) {
      spawnSync('umount', [path.join(mnt, 'ns', 'mnt')]);
      spawnSync('umount', [path.join(mnt, 'ns')]);
      fs.rmSync(mnt, { recursive: true, force: true });
    }
  });

  it('pre-flight names a node that does not see the work folder, before any run starts', { timeout: 120_000 }, async () => {
    const file = path.join(lab.dir, 'island.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(lab.dir, 'pair.json'), 'utf8')), name: 'island', workDir: unshared }),
    );
    expect((await cli(['cluster', 'save', file])).code).toBe(0);
    const r = await cli(['cluster', 'preflight', 'island', '--json']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as { ok: boolean; rows: { check: string; ok: boolean; detail: string; fix: string | null }[] };
    const shared = result.rows.filter((row) => row.check === 'shared');
    expect(shared.map((row) => row.ok)).toEqual([true, false]);
    expect(shared[1].detail).toMatch(
      new RegExp(`^nothing node2 wrote in ${unshared}/preflight/\\S+ is visible here: ${unshared} is not shared with node2$`),
    );
    expect(shared[1].fix).toMatch(/every node mounts at the same path/);
  });

  it('pre-flight runs its tiny job on both nodes: the shared folder and the engine seen on each', { timeout: 120_000 }, async () => {
    const r = await cli(['cluster', 'preflight', 'pair', '--json']);
    const result = JSON.parse(r.stdout) as { ok: boolean; rows: { check: string; ok: boolean; detail: string }[] };
    expect(result.ok, r.stdout).toBe(true);
    expect(result.rows.filter((row) => row.check === 'shared').map((row) => row.detail.split(' ')[0])).toEqual(['node1', 'node2']);
    expect(result.rows.filter((row) => row.check === 'engine').map((row) => row.detail.split(':')[0])).toEqual(['node1', 'node2']);
  });

  it('runs a tiny training on both nodes as one job (DeepSpeed --launcher slurm)', { timeout: 240_000 }, async () => {
    const r = await cli([
      'run',
      '--model',
      'tiny-llama',
      '--strategy',
      'gpu-zero1',
      '--force',
      '--seq',
      '32',
      '--gpus',
      '1',
      '--nodes',
      '2',
      '--steps',
      '2',
      '--warmup',
      '1',
      '--slurm',
      'pair',
      '--json',
    ]);
    expect(r.code, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    const [run] = JSON.parse(r.stdout) as {
      id: string;
      status: string;
      samples: number;
      job: { nodes: string[]; state: string; runDir: string; scriptPath: string };
    }[];
    expect(run.status).toBe('completed');
    expect(run.samples).toBe(3);
    expect(run.job).toMatchObject({ nodes: ['node1', 'node2'], state: 'COMPLETED' });
    expect(fs.readFileSync(run.job.scriptPath, 'utf8')).toContain('--launcher slurm');
    // Both ranks joined one world: the runner's hello says so (rank 0 speaks for the world).
    const out = fs.readFileSync(path.join(run.job.runDir, 'stdout.jsonl'), 'utf8');
    expect(out).toMatch(/"type":"hello".*"worldSize":2/);
    expect(out).toContain('cmd = srun -n 2 --ntasks-per-node=1 --nodes 2');
    const hosts = fs.readFileSync(path.join(run.job.runDir, 'hostfile'), 'utf8');
    expect(hosts.trim().split('\n')).toEqual(['node1 slots=1', 'node2 slots=1']);
  });

  it("a node that fails under a running job ends it as 'node_failure' with the job's nodes named", { timeout: 180_000 }, async () => {
    // The fake runner (tests/fixtures/runner-fake) on both nodes: one step, then it waits.
    const engine = path.join(lab.dir, 'fake-engine');
    fs.mkdirSync(engine, { recursive: true });
    fs.copyFileSync(path.join(root, 'tests/fixtures/slurm/fake-engine-bench.py'), path.join(engine, 'bench.py'));
    const pair = JSON.parse(fs.readFileSync(path.join(lab.dir, 'pair.json'), 'utf8')) as { env: Record<string, string> };
    const file = path.join(lab.dir, 'fragile.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...pair,
        name: 'fragile',
        engineDir: engine,
        env: { ...pair.env, FAKE_RUNNER: path.join(root, 'tests/fixtures/runner-fake/fake_runner.py'), FAKE_RUNNER_ARGS: '--mode=hang' },
      }),
    );
    expect((await cli(['cluster', 'save', file])).code).toBe(0);
    const running = cli([
      'run',
      '--model',
      'tiny-llama',
      '--strategy',
      'gpu-zero1',
      '--force',
      '--seq',
      '32',
      '--gpus',
      '1',
      '--nodes',
      '2',
      '--steps',
      '3',
      '--warmup',
      '0',
      '--slurm',
      'fragile',
      '--json',
    ]);
    const runs = path.join(lab.dir, 'shared', 'runs');
    const started = () =>
      fs.existsSync(runs) &&
      fs
        .readdirSync(runs)
        .some(
          (d) =>
            fs.readFileSync(path.join(runs, d, 'job.sbatch'), 'utf8').includes("'fragile'") &&
            /"type": "step"/.test(readOr(path.join(runs, d, 'stdout.jsonl'))),
        );
    const deadline = Date.now() + 90_000;
    while (!started()) {
      if (Date.now() > deadline) throw new Error('the job never ran a step');
      await new Promise((r) => setTimeout(r, 250));
    }
    // What an admin (or Slurm itself, when a node stops answering) does to a failed node: DOWN.
    const down = spawnSync(
      'nsenter',
      [`--net=/run/netns/${net.hosts[0].ns}`, 'scontrol', 'update', 'NodeName=node2', 'State=DOWN', 'Reason=test-failure'],
      {
        encoding: 'utf8',
        env: { ...process.env, ...lab.env },
      },
    );
    expect(down.status, down.stderr).toBe(0);
    const r = await running;
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    const [run] = JSON.parse(r.stdout) as {
      status: string;
      errorClass: string;
      message: string;
      fix: string;
      job: { state: string; nodes: string[] };
    }[];
    expect(run).toMatchObject({ status: 'failed', errorClass: 'node_failure' });
    expect(run.message).toMatch(/^A node of the job failed \(NODE_FAIL/);
    expect(run.fix).toMatch(/drains the failed node/);
    expect(run.job).toMatchObject({ state: 'NODE_FAIL', nodes: ['node1', 'node2'] });
  });
});

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
