// Slurm's output read by the app: scontrol records (captured from the real slurmctld the Slurm
// suite starts: tests/fixtures/slurm/), gres and memory words, node lists, time limits; what a
// job's state means (failure classes); the sbatch script a run becomes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SlurmTargetSchema } from '../../../electron/contract';
import {
  buildSbatchScript,
  expandNodeList,
  jobFiles,
  parseGres,
  parseJobId,
  parseScontrolRecords,
  shapeOf,
  shapeToMachine,
  slurmBytes,
  slurmMinutes,
  snapshotFromSacct,
  snapshotFromScontrol,
} from '../../../electron/services/cluster';
import { jobRunVerdict, type JobEvidence } from '../../../electron/services/engine';
import { parseMachine } from '../../../electron/services/tuner';

const fixture = (name: string) => fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/slurm', name), 'utf8');

describe('scontrol output', () => {
  it('reads a drained node with GPUs as gres, its features and a reason with spaces', () => {
    const [node] = parseScontrolRecords(fixture('scontrol-node-drained-gres.txt'));
    expect(node).toMatchObject({
      NodeName: 'vm',
      CPUTot: '2',
      RealMemory: '4000',
      Gres: 'gpu:a100:2',
      AvailableFeatures: 'ib,zen3',
      State: 'UNKNOWN+DRAIN+INVALID_REG',
    });
    // the last key takes the rest of the line, spaces included
    expect(node.Reason).toMatch(/^gres\/gpu count reported lower than configured \(0 < 2\) \[root@/);
    const shape = shapeOf('debug', '01:00:00', [node]);
    expect(shape).toMatchObject({
      nodes: ['vm'],
      cpus: 2,
      memBytes: 4000 * 2 ** 20,
      gpus: 2,
      gpuType: 'a100',
      features: ['ib', 'zen3'],
      maxTime: '01:00:00',
    });
  });

  it('reads a partition', () => {
    const [p] = parseScontrolRecords(fixture('scontrol-partition.txt'));
    expect(p).toMatchObject({ PartitionName: 'debug', Nodes: 'vm', MaxTime: '01:00:00', State: 'UP' });
  });

  it('reads a pending job with its reason, and a cancelled one', () => {
    const pending = snapshotFromScontrol(parseScontrolRecords(fixture('scontrol-job-pending.txt'))[0]);
    expect(pending).toMatchObject({ state: 'PENDING', nodes: [], timeLimitMinutes: 60 });
    expect(pending.reason).toBe('Nodes_required_for_job_are_DOWN,_DRAINED_or_reserved_for_jobs_in_higher_priority_partitions');
    const cancelled = snapshotFromScontrol(parseScontrolRecords(fixture('scontrol-job-cancelled.txt'))[0]);
    expect(cancelled.state).toBe('CANCELLED');
    expect(cancelled.exitCode).toBe('0:0');
  });
});

describe('the machine a plan for a partition is for', () => {
  it("is one node as Slurm describes it, its GPUs the catalogue's entry for the gres type", async () => {
    const [node] = parseScontrolRecords(fixture('scontrol-node-drained-gres.txt'));
    const shape = shapeOf('debug', '01:00:00', [node]);
    const target = SlurmTargetSchema.parse({
      kind: 'slurm',
      name: 'lab',
      partition: 'debug',
      timeLimitMinutes: 30,
      nodes: 2,
      gpusPerNode: 2,
      pythonPath: '/p/bin/python',
      workDir: '/shared/w',
    });
    const machine = parseMachine(shapeToMachine(shape, target));
    expect(machine.gpus.map((g) => g.name)).toEqual(['NVIDIA A100 SXM 80 GB', 'NVIDIA A100 SXM 80 GB']);
    expect(machine.memory.totalBytes).toBe(4000 * 2 ** 20);
    expect(machine.cpu.logicalCores).toBe(2);
    expect(machine.gpuStatus.message).toContain('2 × gres gpu:a100 per node');
  });
});

describe('Slurm words', () => {
  it('gres strings', () => {
    expect(parseGres('gpu:a100:4(S:0-1)')).toEqual({ gpus: 4, gpuType: 'a100' });
    expect(parseGres('gpu:2,shard:8')).toEqual({ gpus: 2, gpuType: null });
    expect(parseGres('(null)')).toEqual({ gpus: 0, gpuType: null });
  });
  it('memory, node lists, time limits, job ids', () => {
    expect(slurmBytes('1234K')).toBe(1234 * 1024);
    expect(slurmBytes('2G')).toBe(2 * 2 ** 30);
    expect(expandNodeList('gpu[01-03,07],login1')).toEqual(['gpu01', 'gpu02', 'gpu03', 'gpu07', 'login1']);
    expect(slurmMinutes('01:00:00')).toBe(60);
    expect(slurmMinutes('1-00:00:00')).toBe(1440);
    expect(slurmMinutes('30')).toBe(30);
    expect(slurmMinutes('UNLIMITED')).toBeNull();
    expect(parseJobId('1234\n')).toBe('1234');
    expect(parseJobId('1234;cluster\n')).toBe('1234');
    expect(parseJobId('sbatch: error: Batch job submission failed')).toBeNull();
  });
  it("sacct's MaxRSS is the largest of the job's steps", () => {
    // sacct -P -n -o JobID,State,ExitCode,NodeList,MaxRSS,Reason,Timelimit (the suite's Slurm has no accounting: no capture)
    const text =
      '77|OUT_OF_MEMORY|0:125|gpu01|||01:00:00\n77.batch|OUT_OF_MEMORY|0:125|gpu01|3145728K||\n77.0|OUT_OF_MEMORY|0:125|gpu01|1048576K||\n';
    expect(snapshotFromSacct('77', text)).toMatchObject({
      state: 'OUT_OF_MEMORY',
      maxRssBytes: 3 * 2 ** 30,
      nodes: ['gpu01'],
      timeLimitMinutes: 60,
    });
  });
});

describe("a job's end in the app's words", () => {
  const base: JobEvidence = {
    state: 'COMPLETED',
    reason: null,
    slurmExitCode: '0:0',
    maxRssBytes: null,
    timeLimitMinutes: 30,
    exitText: '0',
    resultSeen: true,
    errorLine: null,
    stderrTail: [],
    stopReason: null,
    nonFiniteLossStep: null,
  };
  it.each([
    ['TIMEOUT', 'timeout', /time limit \(30 min, state TIMEOUT\)/],
    ['OUT_OF_MEMORY', 'host_oom', /OUT_OF_MEMORY, MaxRSS 3072 MiB/],
    ['NODE_FAIL', 'node_failure', /NODE_FAIL/],
    ['PREEMPTED', 'preempted', /preempted/],
    ['CANCELLED by 0', 'cancelled', /CANCELLED by 0/],
  ])('%s → %s, with a fix', (state, errorClass, message) => {
    const v = jobRunVerdict({ ...base, state, resultSeen: false, exitText: null, slurmExitCode: '0:15', maxRssBytes: 3 * 2 ** 30 });
    expect(v.errorClass).toBe(errorClass);
    expect(v.message).toMatch(message);
    if (errorClass !== 'cancelled') expect(v.fix).toBeTruthy();
  });
  it("COMPLETED with a result is completed; FAILED leaves it to the runner's own error line", () => {
    expect(jobRunVerdict(base)).toMatchObject({ status: 'completed', errorClass: null });
    const failed = jobRunVerdict({
      ...base,
      state: 'FAILED',
      resultSeen: false,
      exitText: '3',
      errorLine: { class: 'cuda_oom', message: 'CUDA out of memory.', fix: 'Lower the micro batch.' },
    });
    expect(failed).toMatchObject({ status: 'failed', errorClass: 'cuda_oom', message: 'CUDA out of memory.' });
  });
});

describe('the sbatch script', () => {
  const target = SlurmTargetSchema.parse({
    kind: 'slurm',
    name: 'big',
    partition: 'gpu',
    account: 'proj-42',
    qos: 'normal',
    timeLimitMinutes: 90,
    nodes: 4,
    gpusPerNode: 8,
    gpuType: 'h100',
    constraint: 'ib&sm90',
    pythonPath: '/shared/venv/bin/python',
    setup: ['module load cuda/12.4', "source /opt/conda/etc/profile.d/conda.sh && conda activate 'ds env'"],
    workDir: '/shared/me/offload',
    env: { NCCL_SOCKET_IFNAME: 'ib0' },
  });
  const script = buildSbatchScript(target, { runId: 'r-1', strategy: 'zero3-offload', files: jobFiles(target, 'r-1') });
  it('carries the target as #SBATCH lines and the run folder on the shared filesystem', () => {
    for (const line of [
      '#SBATCH --partition=gpu',
      '#SBATCH --account=proj-42',
      '#SBATCH --qos=normal',
      '#SBATCH --time=90',
      '#SBATCH --nodes=4',
      '#SBATCH --ntasks-per-node=8',
      '#SBATCH --gres=gpu:h100:8',
      '#SBATCH --constraint=ib&sm90',
      '#SBATCH --output=/shared/me/offload/runs/r-1/stdout.jsonl',
    ])
      expect(script).toContain(line);
    // the user's setup lines as written; our values quoted
    expect(script).toContain("conda activate 'ds env'");
    expect(script).toContain("export NCCL_SOCKET_IFNAME='ib0'");
    expect(script).toContain("'/shared/venv/bin/python' -u -m deepspeed.launcher.runner");
    expect(script).toContain('--num_nodes 4');
    expect(script).toContain('--num_gpus 8');
    expect(script).toContain('--launcher slurm');
    expect(script).toContain("'--launcher_args=--ntasks-per-node=8'");
    expect(script).toContain("--spec '/shared/me/offload/runs/r-1/spec.json'");
  });
  it('a value of the target that could break the script is refused, naming the field', () => {
    const bad = SlurmTargetSchema.safeParse({ ...target, partition: 'gpu; rm -rf ~' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['partition'], message: expect.stringContaining('Slurm partition name') });
    expect(SlurmTargetSchema.safeParse({ ...target, workDir: 'relative/path' }).error!.issues[0].path).toEqual(['workDir']);
    expect(SlurmTargetSchema.safeParse({ ...target, setup: ['a\nb'] }).error!.issues[0].path).toEqual(['setup', 0]);
  });
});
