// The sample-dataset converter on real runner output: the protocol's stand-in runner
// (tests/fixtures/runner-fake/fake_runner.py) run as a child process on the app's specs, as a
// device sweep runs bench.py on `plan --write-specs` output; each output beside its spec.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHistory } from '../../../electron/services/history';
import { convertRunnerSweep } from '../../../electron/services/history/raw-sweep';
import { buildRunSpec } from '../../../electron/services/tuner';
import { tmpDir } from './helpers';

const fake = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'runner-fake', 'fake_runner.py');

const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1 };

function runnerOutput(dir: string, name: string, strategy: string, mode: string) {
  const spec = path.join(dir, `${name}.spec.json`);
  fs.writeFileSync(spec, JSON.stringify({ ...buildRunSpec(workload, strategy), steps: 4, warmup: 1 }));
  const r = spawnSync('python3', [fake, '--spec', spec, '--mode', mode], { encoding: 'utf8' });
  fs.writeFileSync(path.join(dir, `${name}.jsonl`), r.stdout);
  fs.writeFileSync(path.join(dir, `${name}.stderr.txt`), r.stderr);
}

describe('raw sweep → runs file', () => {
  it('converts each run through the store lifecycle, keeping the runner clock, and imports', () => {
    const dir = tmpDir();
    // Names say nothing: the spec beside each output says what ran; repeats follow the runner's clock.
    runnerOutput(dir, 'second', 'superoffload', 'ok');
    runnerOutput(dir, 'first', 'zero3-offload', 'ok');
    runnerOutput(dir, 'third', 'superoffload', 'error');
    // An output whose runner names another spec than the one beside it is not stored under it.
    const lines = fs
      .readFileSync(path.join(dir, 'first.jsonl'), 'utf8')
      .split('\n')
      .map((l) => (l.includes('"type": "config"') ? JSON.stringify({ ...JSON.parse(l), configHash: 'sha256:other' }) : l));
    fs.writeFileSync(path.join(dir, 'mismatch.jsonl'), lines.join('\n'));
    fs.copyFileSync(path.join(dir, 'first.spec.json'), path.join(dir, 'mismatch.spec.json'));
    fs.writeFileSync(path.join(dir, 'notes.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'bad.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'bad.spec.json'), JSON.stringify({ ...buildRunSpec(workload, 'zero3-offload'), microBatch: 0 }));
    const source = { label: 'sample: test conversion', machine: 'test box', measuredAt: '2026-12-02', note: null };
    const { file, skipped, rejectedLines } = convertRunnerSweep(dir, { source, sweepId: 'sw-sample' });
    expect(skipped).toEqual([
      "bad.spec.json: field 'microBatch' Too small: expected number to be >0",
      `mismatch.jsonl: ran config sha256:other, but the spec beside it is ${buildRunSpec(workload, 'zero3-offload').configHash}`,
      'notes.jsonl: no notes.spec.json beside it (the RunSpec it ran)',
    ]);
    expect(rejectedLines).toBe(0);
    expect(file.source).toEqual(source);
    const byId = Object.fromEntries(file.runs.map((r) => [r.run.id, r]));
    const ok = byId['second'];
    expect([ok.run.strategy, ok.run.status, ok.run.repeat_index, ok.run.model, ok.run.owner]).toEqual([
      'superoffload',
      'completed',
      0,
      'llama-3.2-3b',
      undefined,
    ]);
    expect(ok.details!.spec).toEqual({ ...buildRunSpec(workload, 'superoffload'), steps: 4, warmup: 1, runId: 'second' });
    const stepLines = fs
      .readFileSync(path.join(dir, 'second.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type": "step"'));
    expect(stepLines.length).toBeGreaterThan(2);
    expect(ok.samples.rows).toHaveLength(stepLines.length); // every step line, warm-up included
    expect(ok.samples.rows[0][ok.samples.columns.indexOf('warmup')]).toBe(1);
    expect(ok.run.tflops_per_gpu).toBe(0.5);
    expect(Math.abs(Date.parse(String(ok.run.created_at)) - Date.now())).toBeLessThan(60_000);
    const failed = byId['third'];
    expect([failed.run.status, failed.run.error_class, failed.run.repeat_index]).toEqual(['failed', 'cuda_oom', 1]);
    expect([byId['first'].run.strategy, byId['first'].run.repeat_index]).toEqual(['zero3-offload', 0]);

    const store = openHistory(tmpDir());
    expect(store.importRuns(file, { file: 'x.runs.json' }).imported).toHaveLength(3);
    expect(store.listRuns({ tag: 'sample' }).total).toBe(3);
    const c = store.compare(file.runs.map((r) => r.run.id));
    expect(c.groups.map((g) => g.label)).toEqual(['ZeRO-3 Offload', 'SuperOffload']);
    expect(c.headline).toMatch(/within 1 %/); // the stand-in runner reports the same figure for all
    store.close();
  });

  it('says when a folder holds no runner output', () => {
    expect(() =>
      convertRunnerSweep(tmpDir(), { source: { label: 'x', machine: null, measuredAt: null, note: null }, sweepId: 's' }),
    ).toThrow(/No runner output/);
  });
});
