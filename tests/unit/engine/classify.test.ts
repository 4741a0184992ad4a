import { describe, expect, it } from 'vitest';
import { ErrorClassSchema, RunnerErrorClassSchema } from '../../../electron/contract';
import { classifyRun, classifyStderr, DEFAULT_FIX, type RunEvidence } from '../../../electron/services/engine';
import { errorTable, matchSignature } from '../../../electron/services/engine/classify';

const base: RunEvidence = { exitCode: 0, signal: null, errorLine: null, resultSeen: true, stderrTail: [], stopReason: null };
const run = (e: Partial<RunEvidence>) => classifyRun({ ...base, ...e });

describe('failure classifier', () => {
  it('a result and exit 0 is completed', () => {
    expect(run({})).toEqual({ status: 'completed', errorClass: null, message: null, fix: null });
  });

  it('a result over a NaN/inf loss is a failed run, class diverged', () => {
    expect(run({ nonFiniteLossStep: 3 })).toMatchObject({
      status: 'failed',
      errorClass: 'diverged',
      message: expect.stringMatching(/step 3/),
    });
    expect(
      run({ exitCode: 3, resultSeen: false, errorLine: { class: 'diverged', message: 'The loss became nan at step 1.', fix: '' } }),
    ).toMatchObject({ status: 'failed', errorClass: 'diverged', fix: expect.stringMatching(/bf16/) });
  });

  it("takes the runner's error line first, with its fix or the default", () => {
    const v = run({
      exitCode: 3,
      resultSeen: false,
      errorLine: { class: 'cuda_oom', message: 'CUDA out of memory at step 4.', fix: 'Lower the micro batch.' },
    });
    expect(v).toMatchObject({
      status: 'failed',
      errorClass: 'cuda_oom',
      message: 'CUDA out of memory at step 4.',
      fix: 'Lower the micro batch.',
    });
    expect(run({ exitCode: 3, resultSeen: false, errorLine: { class: 'op_build', message: 'x', fix: '' } }).fix).toMatch(/compiler/);
  });

  it('SIGKILL without an error line is suspected host OOM', () => {
    const v = run({ exitCode: null, signal: 'SIGKILL', resultSeen: false });
    expect(v.errorClass).toBe('host_oom');
    expect(v.message).toMatch(/killed by the OS — likely out of host memory/);
    expect(run({ exitCode: 137, resultSeen: false }).errorClass).toBe('host_oom');
  });

  it("SIGKILL after torch's informational c10d / NCCL lines is still host OOM; after an exception it is that exception", () => {
    const chatter = [
      '[2026-12-04 20:00:31,210] [INFO] [comm.py:669:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl',
      '[I1204 20:00:31.123456 1234 socket.cpp:752] [c10d] The client socket has connected to [localhost]:29500 on [localhost]:53422.',
      '[W1204 20:00:35.000000 1234 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0] using GPU 0 to perform barrier',
    ];
    expect(run({ exitCode: null, signal: 'SIGKILL', resultSeen: false, stderrTail: chatter }).errorClass).toBe('host_oom');
    const raised = [
      ...chatter,
      'Traceback (most recent call last):',
      'torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970',
    ];
    expect(run({ exitCode: null, signal: 'SIGKILL', resultSeen: false, stderrTail: raised }).errorClass).toBe('distributed');
  });

  it('a cancel or timeout we asked for wins over what the runner said', () => {
    expect(
      run({ exitCode: 130, resultSeen: false, stopReason: 'cancel', errorLine: { class: 'cancelled', message: 'c', fix: '' } }),
    ).toMatchObject({ status: 'cancelled', errorClass: 'cancelled', fix: null });
    expect(run({ exitCode: null, signal: 'SIGKILL', resultSeen: false, stopReason: 'timeout', limitSeconds: 30 })).toMatchObject({
      status: 'failed',
      errorClass: 'timeout',
    });
    expect(run({ exitCode: null, signal: 'SIGKILL', resultSeen: false, stopReason: 'timeout', limitSeconds: 30 }).message).toMatch(/30 s/);
    expect(run({ exitCode: 130, resultSeen: false }).status).toBe('cancelled');
  });

  it('a crash without an error line is classified from the stderr tail', () => {
    const tail = (...lines: string[]) => run({ exitCode: 1, resultSeen: false, stderrTail: lines });
    expect(tail('Traceback', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB').errorClass).toBe('cuda_oom');
    expect(tail("ModuleNotFoundError: No module named 'deepspeed.ops'")).toMatchObject({
      errorClass: 'missing_package',
      fix: expect.stringContaining('pip install deepspeed'),
    });
    expect(tail("RuntimeError: Error building extension 'cpu_adam'").message).toMatch(/cpu_adam/);
    expect(tail('/bin/sh: 1: c++: not found').errorClass).toBe('op_build');
    expect(tail('torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970').errorClass).toBe('distributed');
    expect(tail('RuntimeError: DefaultCPUAllocator: not enough memory: you tried to allocate 1 GB').errorClass).toBe('host_oom');
    const plain = tail('something odd happened', '');
    expect(plain).toMatchObject({ status: 'failed', errorClass: 'crashed' });
    expect(plain.message).toMatch(/exited with code 1 .*Last log line: something odd happened/);
    expect(run({ exitCode: null, signal: 'SIGSEGV', resultSeen: false }).message).toMatch(/SIGSEGV/);
  });

  it('exit 2 without an error line is a bad config; exit 0 without a result a protocol failure; a spawn error is named', () => {
    expect(
      run({
        exitCode: 2,
        resultSeen: false,
        stderrTail: ['usage: bench.py --spec SPEC', 'bench.py: error: the following arguments are required: --spec'],
      }).errorClass,
    ).toBe('bad_config');
    expect(run({ exitCode: 0, resultSeen: false }).errorClass).toBe('protocol');
    expect(run({ exitCode: null, resultSeen: false, spawnError: 'python9: ENOENT' })).toMatchObject({
      errorClass: 'spawn',
      message: expect.stringContaining('ENOENT'),
    });
  });
});

// The one error table, shared with the runner (resources/engine/error-signatures.json; the
// runner's tests/engine/test_errors.py runs the same examples through errors.py).
describe('shared error table', () => {
  it('every class the app knows has its texts there, and only runner classes have signatures', () => {
    const t = errorTable();
    expect(Object.keys(t.classes).sort()).toEqual([...ErrorClassSchema.options].sort());
    const runnerOnly = Object.entries(t.classes)
      .filter(([, v]) => !v.orchestratorOnly)
      .map(([k]) => k)
      .sort();
    expect(runnerOnly).toEqual([...RunnerErrorClassSchema.options].sort());
    for (const c of ErrorClassSchema.options) expect(DEFAULT_FIX[c] === null).toBe(c === 'cancelled');
    expect(DEFAULT_FIX.diverged).toMatch(/bf16/);
  });

  it("every 'any' signature's examples classify to its class from a log tail; 'exception' ones stay out of logs", () => {
    const t = errorTable();
    for (const sig of t.signatures) {
      expect(sig.examples.length).toBeGreaterThan(0);
      for (const text of sig.examples) {
        const found = classifyStderr(['Traceback (most recent call last):', ...text.split('\n')]);
        if (sig.scope === 'any') expect(found?.errorClass, text).toBe(sig.class);
      }
    }
    // DeepSpeed says "backend gloo" in every healthy CPU run: no evidence of a failure in a log.
    expect(classifyStderr(['[INFO] Initializing TorchBackend in DeepSpeed with backend gloo'])).toBeNull();
  });

  it('fills the capture group and the pip name into the texts', () => {
    expect(matchSignature("ModuleNotFoundError: No module named 'cpuinfo'")).toMatchObject({
      errorClass: 'missing_package',
      message: expect.stringContaining("'cpuinfo'"),
      fix: expect.stringContaining('pip install py-cpuinfo'),
    });
    expect(matchSignature('ninja: build stopped: subcommand failed.')?.message).toBe(errorTable().classes.op_build.message);
  });
});
