// Slurm for real, on one host: the test starts munged, slurmctld and one slurmd (tests/cluster/
// slurm-lab.ts) and drives the real CLI against them: save, detect, pre-flight, a tiny CPU training
// with the real runner submitted through sbatch, a refused request in Slurm's words, a cancel
// (scancel), a time-limit kill and a restart of the app mid-job that finds the job's real state.
// The slow jobs use the fake runner (tests/fixtures/runner-fake) as the engine folder's bench.py.
// Needs root and Debian's slurmctld, slurmd, slurm-client and munge (.ci/run installs them).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend } from '../../../electron/services/backend';
import { engineVenvs, venvPython } from '../../../electron/services/environment';
import { startSlurmLab, slurmUnavailable, type SlurmLab } from '../../cluster/slurm-lab';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const [engineVenv] = engineVenvs();
const VENV_PYTHON = process.env.OFFLOAD_STUDIO_TEST_PYTHON ?? (engineVenv ? venvPython(engineVenv) : 'no engine venv');
const skipReason =
  slurmUnavailable() ?? (fs.existsSync(VENV_PYTHON) ? null : `no engine interpreter at ${VENV_PYTHON} (run scripts/setup-engine-venv.sh)`);
if (skipReason) console.log(`[slurm test] skipped: ${skipReason}`);

const FAKE_RUNNER = path.join(root, 'tests/fixtures/runner-fake/fake_runner.py');

interface Cli {
  child: ChildProcess;
  stdout: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

describe.skipIf(skipReason !== null)('Slurm on one host (real slurmctld + slurmd)', () => {
  let lab: SlurmLab;
  let work: string;
  let fakeEngine: string;
  const dataDir = (name: string) => path.join(lab.dir, `data-${name}`);

  function cli(args: string[], data: string): Cli {
    // node itself (tsx as a loader), not the tsx wrapper: a kill must reach the CLI, and this test,
    // its parent, reaps it (a container's init may leave a zombie that still looks alive).
    const child = spawn(process.execPath, ['--import', 'tsx', 'electron/cli/main.ts', ...args, '--data-dir', data], {
      cwd: root,
      env: { ...process.env, ...lab.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, stdout, stderr })),
    );
    return { child, stdout: () => stdout, done };
  }
  const scontrolState = (jobId: string) =>
    /JobState=(\S+)/.exec(
      spawnSync('scontrol', ['-o', 'show', 'job', jobId], { encoding: 'utf8', env: { ...process.env, ...lab.env } }).stdout,
    )?.[1];
  const waitFor = async (what: string, test: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  function saveTarget(data: string, name: string, extra: Record<string, unknown> = {}) {
    const file = path.join(lab.dir, `${name}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        kind: 'slurm',
        name,
        partition: lab.partition,
        timeLimitMinutes: 5,
        nodes: 1,
        gpusPerNode: 0,
        pythonPath: VENV_PYTHON,
        workDir: work,
        ...extra,
      }),
    );
    const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', 'cluster', 'save', file, '--data-dir', data], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
  }
  /** The run folder of the target's job once its output has `steps` steps. */
  function jobDirWith(target: string, steps: number): string | null {
    const runs = path.join(work, 'runs');
    const dirs = fs.existsSync(runs) ? fs.readdirSync(runs).map((d) => path.join(runs, d)) : [];
    return (
      dirs.find(
        (d) =>
          readOr(path.join(d, 'job.sbatch')).includes(`Slurm target '${target}'`) &&
          (readOr(path.join(d, 'stdout.jsonl')).match(/"type": "step"/g) ?? []).length >= steps,
      ) ?? null
    );
  }
  // The fake runner as a job: same JSON lines, slow or hanging on purpose.
  const fakeTarget = (args: string) => ({ engineDir: fakeEngine, env: { FAKE_RUNNER, FAKE_RUNNER_ARGS: args } });
  const RUN = ['run', '--model', 'tiny-llama', '--strategy', 'gpu-zero1', '--force', '--seq', '32', '--gpus', '1', '--json'];

  // Started first: Slurm only ends a job at its time limit after a minute, and the app gives up on a
  // pending job after maxPendingMinutes (at least one); the other tests run meanwhile.
  let timeLimited: Cli;
  let pending: Cli;

  beforeAll(async () => {
    lab = await startSlurmLab({ nodes: [{ name: 'node1', addr: '127.0.0.1' }], controllerAddr: '127.0.0.1' });
    work = path.join(lab.dir, 'shared');
    fakeEngine = path.join(lab.dir, 'fake-engine');
    fs.mkdirSync(fakeEngine, { recursive: true });
    fs.copyFileSync(path.join(root, 'tests/fixtures/slurm/fake-engine-bench.py'), path.join(fakeEngine, 'bench.py'));
    const data = dataDir('limit');
    saveTarget(data, 'limit', { ...fakeTarget('--mode=hang'), timeLimitMinutes: 1 });
    timeLimited = cli([...RUN, '--steps', '3', '--warmup', '1', '--slurm', 'limit'], data);
    const held = dataDir('held');
    saveTarget(held, 'held', { ...fakeTarget('--mode=ok'), partition: 'held', maxPendingMinutes: 1 });
    pending = cli([...RUN, '--steps', '1', '--warmup', '0', '--slurm', 'held'], held);
  }, 60_000);

  afterAll(() => {
    timeLimited?.child.kill('SIGKILL');
    pending?.child.kill('SIGKILL');
    lab?.stop();
  });

  it(
    'detect reads the partition from scontrol; preflight passes; a request Slurm refuses is shown in its words',
    { timeout: 90_000 },
    async () => {
      const data = dataDir('checks');
      saveTarget(data, 'lab');
      const detect = await cli(['cluster', 'detect', 'lab'], data).done;
      expect(detect.code, detect.stderr).toBe(0);
      expect(detect.stdout).toContain('partition lab: 1 node(s) (node1), per node 2 CPUs');
      // the plan is for one node of the partition as Slurm describes it
      const plan = await cli(['plan', '--model', 'tiny-llama', '--seq', '32', '--slurm', 'lab', '--json'], data).done;
      expect(plan.code, plan.stderr.slice(-2000)).toBe(0);
      expect((JSON.parse(plan.stdout) as { profile: { machineLabel: string } }).profile.machineLabel).toMatch(/^lab\/lab/);
      const ok = await cli(['cluster', 'preflight', 'lab', '--json'], data).done;
      const result = JSON.parse(ok.stdout) as { ok: boolean; rows: { check: string; ok: boolean; detail: string }[] };
      expect(result.rows.map((r) => [r.check, r.ok])).toEqual([
        ['sbatch', true],
        ['partition', true],
        ['workdir', true],
        ['request', true],
        ['shared', true],
        ['engine', true],
      ]);
      expect(result.rows.find((r) => r.check === 'engine')!.detail).toMatch(/^node1: python 3\.\d+\.\d+ torch \S+ deepspeed \S+/);

      // A GPU the partition does not have: sbatch refuses, and its message is what the user sees.
      saveTarget(data, 'gpu', { gpusPerNode: 1 });
      const refused = await cli(['cluster', 'preflight', 'gpu', '--json'], data).done;
      expect(refused.code).toBe(1);
      const request = (JSON.parse(refused.stdout) as typeof result).rows.find((r) => r.check === 'request')!;
      expect(request.ok).toBe(false);
      expect(request.detail).toMatch(/^Slurm refuses the request: sbatch: error: .*(gres|Requested node configuration is not available)/i);
      const run = await cli([...RUN, '--steps', '1', '--warmup', '0', '--slurm', 'gpu'], data).done;
      expect(run.code).toBe(1);
      const [failed] = JSON.parse(run.stdout) as { errorClass: string; message: string }[];
      expect(failed.errorClass).toBe('job_refused');
      expect(failed.message).toMatch(/^Slurm refused the job: sbatch: error: /);
    },
  );

  it(
    'runs a tiny CPU training as a job: the real runner under srun, steps streamed, the job in history',
    { timeout: 180_000 },
    async () => {
      const data = dataDir('tiny');
      saveTarget(data, 'lab');
      const r = await cli([...RUN, '--steps', '2', '--warmup', '1', '--slurm', 'lab'], data).done;
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.stderr).toMatch(/step 1\/3 \(warm-up\)/);
      const [run] = JSON.parse(r.stdout) as {
        id: string;
        status: string;
        samples: number;
        job: Record<string, unknown>;
        result: { measuredSteps: number };
      }[];
      expect(run.status).toBe('completed');
      expect(run.samples).toBe(3);
      expect(run.result.measuredSteps).toBe(2);
      expect(run.job).toMatchObject({
        scheduler: 'slurm',
        target: 'lab',
        partition: 'lab',
        nodes: ['node1'],
        state: 'COMPLETED',
        exitCode: '0:0',
      });
      expect(scontrolState(run.job.jobId as string)).toBe('COMPLETED');
      const script = fs.readFileSync(run.job.scriptPath as string, 'utf8');
      expect(script).toContain('#SBATCH --partition=lab');
      expect(script).toContain(`srun --ntasks=1 --nodes=1 '${VENV_PYTHON}' -u`);
      // `cluster script --export` writes the same script for a spec, without submitting it
      const exported = path.join(lab.dir, 'exported.sbatch');
      const written = await cli(
        ['cluster', 'script', 'lab', '--spec', path.join(path.dirname(run.job.scriptPath as string), 'spec.json'), '--export', exported],
        data,
      ).done;
      expect(written.code, written.stderr).toBe(0);
      expect(fs.readFileSync(exported, 'utf8')).toBe(script);

      // The report names the cluster, partition and job; the bundle carries the script as submitted.
      const backend = createBackend({ dataDir: data, transport: 'cli' });
      try {
        const html = path.join(lab.dir, 'report.html');
        await backend.invoke('reports/export', { runIds: [run.id], format: 'html', path: html });
        const text = fs.readFileSync(html, 'utf8');
        expect(text).toContain('Slurm jobs');
        expect(text).toMatch(
          new RegExp(`<td>${run.id}</td><td>lab</td><td>lab</td><td>${run.job.jobId as string}</td><td>node1</td><td>COMPLETED</td>`),
        );
        const bundle = path.join(lab.dir, 'bundle');
        await backend.invoke('reports/export', { runIds: [run.id], format: 'bundle', path: bundle });
        const [folder] = fs.readdirSync(bundle).filter((f) => f !== 'README.md');
        expect(fs.readFileSync(path.join(bundle, folder, 'job.sbatch'), 'utf8')).toBe(script);
      } finally {
        await backend.close();
      }
    },
  );

  it('Ctrl-C cancels the job with scancel: cancelled in history and in Slurm', { timeout: 120_000 }, async () => {
    const data = dataDir('cancel');
    saveTarget(data, 'slow', fakeTarget('--mode=ok,--delay=1'));
    const run = cli([...RUN, '--steps', '60', '--warmup', '1', '--slurm', 'slow'], data);
    // progress goes to stderr under --json: wait on the job's own output on the shared folder
    await waitFor('a step in the job output', () => jobDirWith('slow', 1) !== null, 60_000);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr.slice(-2000)).toBe(130);
    const [ended] = JSON.parse(r.stdout) as { status: string; errorClass: string; job: { jobId: string; state: string } }[];
    expect(ended).toMatchObject({ status: 'cancelled', errorClass: 'cancelled' });
    expect(scontrolState(ended.job.jobId)).toBe('CANCELLED');
  });

  it(
    'a restart mid-job finds the job still running, and after its end the real outcome with every step',
    { timeout: 180_000 },
    async () => {
      const data = dataDir('restart');
      saveTarget(data, 'steady', fakeTarget('--mode=ok,--delay=1'));
      const run = cli([...RUN, '--steps', '16', '--warmup', '1', '--slurm', 'steady'], data);
      await waitFor('two steps in the job output', () => jobDirWith('steady', 2) !== null, 90_000);
      const runDir = jobDirWith('steady', 2)!;
      run.child.kill('SIGKILL'); // the app dies: no cancel reaches Slurm
      await run.done;
      const runId = path.basename(runDir);

      const first = createBackend({ dataDir: data, transport: 'cli' });
      let jobId: string;
      try {
        const detail = await first.invoke('runs/get', { id: runId });
        expect(detail.summary.status).toBe('interrupted');
        expect(detail.job).toMatchObject({ state: 'RUNNING', nodes: ['node1'] });
        jobId = detail.job!.jobId;
      } finally {
        await first.close();
      }
      await waitFor('the job to end', () => scontrolState(jobId) === 'COMPLETED', 60_000);

      const second = createBackend({ dataDir: data, transport: 'cli' });
      try {
        const detail = await second.invoke('runs/get', { id: runId });
        expect(detail.summary.status).toBe('completed');
        expect(detail.job).toMatchObject({ state: 'COMPLETED', jobId });
        expect(detail.samples.map((s) => s.step)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
        expect(detail.result).toMatchObject({ measuredSteps: 16 });
      } finally {
        await second.close();
      }
    },
  );

  it("a job past its time limit is ended by Slurm and recorded as 'timeout' with the limit", { timeout: 200_000 }, async () => {
    const r = await timeLimited.done;
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    const [run] = JSON.parse(r.stdout) as {
      status: string;
      errorClass: string;
      message: string;
      fix: string;
      job: { jobId: string; state: string };
    }[];
    expect(run).toMatchObject({ status: 'failed', errorClass: 'timeout' });
    expect(run.message).toContain('Slurm ended the job at its time limit (1 min, state TIMEOUT)');
    expect(run.job.state).toBe('TIMEOUT');
    expect(scontrolState(run.job.jobId)).toBe('TIMEOUT');
  });

  it(
    "a job that waits in the queue past maxPendingMinutes is cancelled and recorded 'pending_too_long' with Slurm's reason",
    { timeout: 200_000 },
    async () => {
      const r = await pending.done;
      expect(r.code, r.stderr.slice(-2000)).toBe(1);
      const [run] = JSON.parse(r.stdout) as { status: string; errorClass: string; message: string; fix: string; job: { jobId: string } }[];
      expect(run).toMatchObject({ status: 'failed', errorClass: 'pending_too_long' });
      expect(run.message).toBe('The job waited in the queue more than 1 min (PartitionDown) and was cancelled.');
      expect(run.fix).toMatch(/pending reason/);
      expect(scontrolState(run.job.jobId)).toBe('CANCELLED');
    },
  );

  it(
    'a sweep goes as a dependency chain or as one job array, the target says which; every run keeps its own job and folder',
    { timeout: 180_000 },
    async () => {
      const chainData = dataDir('chain');
      saveTarget(chainData, 'chain', { ...fakeTarget('--mode=ok'), sweepMode: 'chain' });
      const arrayData = dataDir('array');
      saveTarget(arrayData, 'array', { ...fakeTarget('--mode=ok'), sweepMode: 'array' });
      const [chain, array] = await Promise.all([
        cli([...RUN, '--steps', '2', '--warmup', '0', '--repeats', '2', '--slurm', 'chain'], chainData).done,
        cli([...RUN, '--steps', '2', '--warmup', '0', '--repeats', '2', '--slurm', 'array'], arrayData).done,
      ]);
      expect(chain.code, chain.stderr.slice(-2000)).toBe(0);
      expect(array.code, array.stderr.slice(-2000)).toBe(0);
      type Ran = { status: string; samples: number; job: { jobId: string; state: string; scriptPath: string } };
      const chained = JSON.parse(chain.stdout) as Ran[];
      expect(chained.map((r) => [r.status, r.samples, r.job.state])).toEqual([
        ['completed', 2, 'COMPLETED'],
        ['completed', 2, 'COMPLETED'],
      ]);
      // the second waits for the first: Slurm keeps the order, one measures at a time
      expect(fs.readFileSync(chained[1].job.scriptPath, 'utf8')).toContain(`#SBATCH --dependency=afterany:${chained[0].job.jobId}`);
      const arrayed = JSON.parse(array.stdout) as Ran[];
      const arrayId = arrayed[0].job.jobId.split('_')[0];
      expect(arrayed.map((r) => [r.status, r.samples, r.job.jobId, r.job.state])).toEqual([
        ['completed', 2, `${arrayId}_0`, 'COMPLETED'],
        ['completed', 2, `${arrayId}_1`, 'COMPLETED'],
      ]);
      const arrayScript = fs.readFileSync(path.join(work, 'sweeps', fs.readdirSync(path.join(work, 'sweeps'))[0], 'array.sbatch'), 'utf8');
      expect(arrayScript).toContain('#SBATCH --array=0-1');
      expect(arrayScript).toContain(`1) exec bash '${arrayed[1].job.scriptPath}'`);
    },
  );

  it(
    'tune runs its trials as jobs of the target (each trial its own runs/start, awaited before the refit)',
    { timeout: 180_000 },
    async () => {
      const data = dataDir('tune');
      saveTarget(data, 'trials', fakeTarget('--mode=ok'));
      const r = await cli(
        [
          'tune',
          '--model',
          'tiny-llama',
          '--seq',
          '32',
          '--gpus',
          '1',
          '--max-trials',
          '2',
          '--steps',
          '2',
          '--warmup',
          '0',
          '--slurm',
          'trials',
        ],
        data,
      ).done;
      expect(r.code, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`).toBe(0);
      const backend = createBackend({ dataDir: data, transport: 'cli' });
      try {
        const { runs } = await backend.invoke('runs/list', { tag: 'tune' });
        expect(runs.length).toBeGreaterThanOrEqual(1);
        const jobs = await Promise.all(runs.map(async (run) => (await backend.invoke('runs/get', { id: run.id })).job));
        // every trial a job of its own, each submitted after the previous ended
        expect(new Set(jobs.map((j) => j?.jobId)).size).toBe(runs.length);
        expect(jobs.every((j) => j?.state === 'COMPLETED' && j.target === 'trials')).toBe(true);
      } finally {
        await backend.close();
      }
    },
  );
});

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
