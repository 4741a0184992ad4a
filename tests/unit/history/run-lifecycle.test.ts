// The run lifecycle in the history store, on real SQLite files: transitions, samples, details,
// and start-up recovery after a real crash of the process that owned a running run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseSync } from '@photostructure/sqlite';
import { openHistory } from '../../../electron/services/history';
import { migrations } from '../../../electron/services/history/migrations';
import { abandonOwner } from '../../../electron/services/history/owner';
import { schemaVersion } from '../../../electron/services/history/database';

const root = path.resolve(import.meta.dirname, '../../..');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-life-'));
const newRun = (id: string) => ({
  id,
  sweepId: 'sw-1',
  repeatIndex: 0,
  model: 'tiny-llama',
  strategy: 'zero3-offload',
  engine: 'deepspeed',
  steps: 3,
  warmup: 1,
});
const sample = (step: number) => ({
  step,
  warmup: step === 1,
  stepSeconds: 0.5,
  tflopsPerGpu: 1.5,
  tokensPerSecond: 64,
  loss: 5 - step / 10,
  gpuAllocatedBytes: null,
  gpuReservedBytes: null,
  gpuPeakBytes: 2 ** 33,
  hostRssBytes: 2 ** 30,
});

describe('run lifecycle', () => {
  it('queued → running → completed, with samples, documents and summary figures', () => {
    const dir = tmp();
    const store = openHistory(dir);
    store.createRun({ ...newRun('r1'), tags: ['smoke'], spec: { runId: 'r1' }, predicted: { tflopsPerGpu: 2, stepSeconds: 0.4 } });
    expect(store.listRuns().runs[0]).toMatchObject({ id: 'r1', status: 'queued', tags: ['smoke'] });
    store.startRun('r1', {
      snapshot: { hostname: 'h', machineId: 'm1', detectedAt: 'x' },
      machineId: 'm1',
      logPath: path.join(dir, 'logs', 'r1.log'),
    });
    expect(() => store.startRun('r1', {})).toThrow(/not queued/);
    store.recordHello('r1', { type: 'hello', torch: '2.11' });
    store.recordConfig('r1', { type: 'config', params: 1 });
    store.appendSamples('r1', [sample(1), sample(2)]);
    store.appendSamples('r1', [sample(3), { ...sample(4), loss: Number.NaN }]);
    const result = {
      stepSeconds: { median: 0.5 },
      tflopsPerGpu: { median: 1.5 },
      tokensPerSecond: { median: 64 },
      peakGpuBytes: 2 ** 33,
      peakHostBytes: 2 ** 30,
    };
    expect(store.finishRun('r1', { status: 'completed', exitCode: 0, result })).toBe(true);
    expect(store.finishRun('r1', { status: 'failed' })).toBe(false); // the first end wins
    fs.mkdirSync(path.join(dir, 'logs')); // run logs live in <dataDir>/logs (the only folder runs/get reads)
    fs.writeFileSync(path.join(dir, 'logs', 'r1.log'), 'line 1\nline 2\nline 3\n');
    const d = store.getRun('r1', 2)!;
    expect(d.summary).toMatchObject({ status: 'completed', machineId: 'm1', tflopsPerGpu: 1.5, stepSeconds: 0.5, peakGpuBytes: 2 ** 33 });
    expect(d.samples.map((s) => s.step)).toEqual([1, 2, 3, 4]);
    expect(d.samples[3].loss).toBeNull();
    expect(d.samples[0]).toEqual(sample(1));
    expect(d).toMatchObject({
      exitCode: 0,
      steps: 3,
      warmup: 1,
      hello: { torch: '2.11' },
      config: { params: 1 },
      predicted: { tflopsPerGpu: 2 },
      snapshot: { machineId: 'm1' },
    });
    expect(d.logTail).toEqual(['line 2', 'line 3']);
    expect(store.getRun('nope')).toBeNull();
    store.close();
  });

  it('migrates a version-1 database in place, keeping its runs listable', () => {
    const dir = tmp();
    // A database as the skeleton shipped it (migration 1 only), with one run.
    const db = new DatabaseSync(path.join(dir, 'history.db'));
    db.exec(migrations[0].sql);
    db.exec('PRAGMA user_version = 1');
    db.prepare(
      "INSERT INTO runs (id, created_at, status, model, strategy, engine) VALUES ('old', '2026-01-01', 'completed', 'm', 's', 'deepspeed')",
    ).run();
    db.close();
    const store = openHistory(dir);
    expect(schemaVersion(store.db)).toBe(migrations.at(-1)!.version);
    expect(store.listRuns().runs.map((r) => r.id)).toEqual(['old']);
    expect(store.getRun('old')!.samples).toEqual([]);
    store.close();
  });

  it('after a real crash of the owning process, reopening marks its running run interrupted (samples kept) and says so', async () => {
    const dir = tmp();
    // A child process opens the store, starts a run, writes two samples and SIGKILLs itself.
    const script = path.join(dir, 'crash.ts');
    fs.writeFileSync(
      script,
      `import { openHistory } from ${JSON.stringify(path.join(root, 'electron/services/history/index.ts'))};
       const s = openHistory(${JSON.stringify(dir)});
       s.createRun({ id: 'crashed', sweepId: null, repeatIndex: 0, model: 'm', strategy: 's', engine: 'deepspeed', steps: 3, warmup: 1 });
       s.createRun({ id: 'queued', sweepId: null, repeatIndex: 1, model: 'm', strategy: 's', engine: 'deepspeed', steps: 3, warmup: 1 });
       s.startRun('crashed', {});
       s.appendSamples('crashed', ${JSON.stringify([sample(1), sample(2)])});
       process.kill(process.pid, 'SIGKILL');`,
    );
    const exit = await new Promise<string>((resolve) => {
      const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [script], { stdio: 'inherit', shell: false });
      // tsx runs the script in a child of its own and relays its death as 137 or the signal.
      child.on('exit', (c, signal) => resolve(String(signal ?? c)));
    });
    expect(['SIGKILL', '137']).toContain(exit);
    const store = openHistory(dir);
    expect(store.recovered.map((r) => `${r.id}:${r.previousStatus}`).sort()).toEqual(['crashed:running', 'queued:queued']);
    expect(store.recoveryNotice()).toMatch(/1 run\(s\) left running and 1 queued run\(s\) .* marked interrupted/);
    const d = store.getRun('crashed')!;
    expect(d.summary.status).toBe('interrupted');
    expect(d.summary.finishedAt).not.toBeNull();
    expect(d.summary.errorMessage).toMatch(/stopped while this run was running/);
    expect(d.samples).toHaveLength(2);
    expect(store.listRuns({ status: 'running' }).total).toBe(0);
    store.close();
    // Recovery happens once.
    const again = openHistory(dir);
    expect(again.recovered).toEqual([]);
    again.close();
  });

  it('an in-process store abandoned without close (a crash as the process sees it) is recovered on reopen', () => {
    const dir = tmp();
    const a = openHistory(dir);
    a.createRun(newRun('r'));
    a.startRun('r', {});
    abandonOwner(a.owner);
    const b = openHistory(dir);
    expect(b.getRun('r')!.summary.status).toBe('interrupted');
    b.close();
    a.db.close();
  });

  it('leaves alone the running runs of another live process sharing the data folder', async () => {
    const dir = tmp();
    const a = openHistory(dir);
    a.createRun(newRun('mine'));
    a.startRun('mine', {});
    const b = openHistory(dir); // a second window / the CLI while the app runs
    expect(b.recovered).toEqual([]);
    expect(b.getRun('mine')!.summary.status).toBe('running');
    // A row owned by a live process of another program (pid of a sleeping child) stays too.
    const sleeper = spawn('sleep', ['30'], { shell: false });
    b.db.prepare("UPDATE runs SET owner = ? WHERE id = 'mine'").run(`${os.hostname()}:${sleeper.pid}:x`);
    b.close();
    const c = openHistory(dir);
    expect(c.getRun('mine')!.summary.status).toBe('running');
    c.close();
    await new Promise((r) => {
      sleeper.once('exit', r); // reaped: no zombie left to look alive
      sleeper.kill('SIGKILL');
    });
    const d = openHistory(dir);
    expect(d.getRun('mine')!.summary.status).toBe('interrupted');
    d.close();
    a.db.close();
  });

  it('closing a store interrupts its own unfinished runs (never left running)', () => {
    const dir = tmp();
    const a = openHistory(dir);
    a.createRun(newRun('r'));
    a.startRun('r', {});
    a.close();
    const b = openHistory(dir);
    expect(b.getRun('r')!.summary.status).toBe('interrupted');
    b.close();
  });
});
