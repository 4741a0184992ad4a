// The runner child process for real: the fake runner is a Python process that speaks the
// protocol, hangs, ignores SIGINT or SIGKILLs itself on request.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRunner, type RunnerHandle } from '../../../electron/services/engine';
import type { RunnerMessage } from '../../../electron/contract';
import { fakeLaunch, tmpDir, writeSpec } from './helpers';

function run(mode: string, opts: { timeoutMs?: number; graceMs?: number; extra?: string[] } = {}) {
  const dir = tmpDir();
  const messages: RunnerMessage[] = [];
  const logFile = path.join(dir, 'logs', 'run.log');
  const handle = startRunner({
    launch: fakeLaunch(writeSpec(dir), mode, opts.extra),
    logFile,
    onMessage: (m) => messages.push(m),
    ...opts,
  });
  return { handle, messages, logFile };
}

const until = async (cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const groupGone = (h: RunnerHandle) => {
  try {
    process.kill(-h.pid!, 0);
    return false;
  } catch {
    return true;
  }
};

describe('runner process', () => {
  it('runs to completion: messages parsed, stderr in the log, exit 0', async () => {
    const { handle, messages, logFile } = run('ok');
    const out = await handle.done;
    expect(out).toMatchObject({ status: 'completed', exitCode: 0, stopReason: null, forced: false });
    expect(messages.map((m) => m.type)).toEqual(['hello', 'config', 'step', 'step', 'step', 'step', 'step', 'result']);
    expect(out.result?.measuredSteps).toBe(4);
    expect(fs.readFileSync(logFile, 'utf8')).toMatch(/fake runner pid \d+ mode ok/);
  });

  it('cancel is graceful: SIGINT to the group, the runner reports cancelled and exits 130', async () => {
    const { handle, messages } = run('hang');
    await until(() => messages.some((m) => m.type === 'step'));
    const t0 = Date.now();
    handle.cancel();
    const out = await handle.done;
    expect(out).toMatchObject({ status: 'cancelled', errorClass: 'cancelled', exitCode: 130, forced: false });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(groupGone(handle)).toBe(true);
  });

  it('cancel is forced after the grace period when the runner ignores SIGINT', async () => {
    const { handle, messages } = run('ignore-sigint', { graceMs: 700 });
    await until(() => messages.some((m) => m.type === 'step'));
    const t0 = Date.now();
    handle.cancel();
    const out = await handle.done;
    expect(out).toMatchObject({ status: 'cancelled', errorClass: 'cancelled', forced: true, signal: 'SIGKILL' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(650);
    expect(groupGone(handle)).toBe(true);
  });

  it('a wall-clock limit ends the run as timeout', async () => {
    const { handle } = run('ignore-sigint', { timeoutMs: 1500, graceMs: 300 });
    const out = await handle.done;
    expect(out).toMatchObject({ status: 'failed', errorClass: 'timeout', stopReason: 'timeout', forced: true });
    expect(out.message).toMatch(/wall-clock limit of 2 s/);
  });

  it('a runner killed by SIGKILL mid-run is host_oom suspected, with the steps so far received', async () => {
    const { handle, messages } = run('sigkill-self');
    const out = await handle.done;
    expect(out).toMatchObject({ status: 'failed', errorClass: 'host_oom', signal: 'SIGKILL' });
    expect(messages.filter((m) => m.type === 'step')).toHaveLength(2);
    expect(out.stderrTail).toContain('about to be killed');
  });

  it('crashes are classified from the stderr tail; error lines are taken as given', async () => {
    const crash = await run('crash').handle.done;
    expect(crash).toMatchObject({ status: 'failed', errorClass: 'crashed', exitCode: 1 });
    expect(crash.message).toMatch(/Segfaultish/);
    expect((await run('oom-trace').handle.done).errorClass).toBe('cuda_oom');
    const error = await run('error').handle.done;
    expect(error).toMatchObject({
      errorClass: 'cuda_oom',
      message: 'CUDA out of memory at step 2.',
      fix: 'Lower the micro batch.',
      exitCode: 3,
    });
    expect((await run('no-result').handle.done).errorClass).toBe('protocol');
  });

  it("a NaN loss ends the run failed as diverged: from the runner's error line, or from the steps of one that still reported a result", async () => {
    const own = await run('diverged').handle.done;
    expect(own).toMatchObject({ status: 'failed', errorClass: 'diverged', message: 'The loss became nan at step 2.', exitCode: 3 });
    const old = await run('nan-loss').handle.done;
    expect(old.result).not.toBeNull();
    expect(old).toMatchObject({ status: 'failed', errorClass: 'diverged', exitCode: 0 });
    expect(old.message).toMatch(/step 2/);
    expect(old.fix).toMatch(/bf16/);
  });

  it('library noise, bad lines and huge lines go to the log; the run still completes', async () => {
    const { handle, messages, logFile } = run('noise');
    const out = await handle.done;
    expect(out.status).toBe('completed');
    expect(out.protocolErrors).toBeGreaterThanOrEqual(3); // bad step, huge line, invalid UTF-8
    const steps = messages.filter((m) => m.type === 'step');
    expect(steps).toHaveLength(5);
    expect(steps[1].type === 'step' && steps[1].tokensPerSecond).toBeNull(); // NaN → null
    const log = fs.readFileSync(logFile, 'utf8');
    expect(log).toMatch(/\[stdout\] Using .*extensions root/);
    expect(log).toMatch(/ignored message of unknown type 'telemetry'/);
    expect(log).toMatch(/exceeded the 1048576-byte limit/);
    expect(log.length).toBeLessThan(100_000); // the 2 MiB line was not copied into the log
  });

  it('a missing interpreter is a spawn failure, not a hang', async () => {
    const handle = startRunner({ launch: { command: '/nonexistent/python9', args: [] } });
    const out = await handle.done;
    expect(out).toMatchObject({ status: 'failed', errorClass: 'spawn' });
    expect(out.message).toMatch(/ENOENT/);
  });
});
