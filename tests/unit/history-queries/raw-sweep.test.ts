// The sample-dataset converter on real runner output: the protocol's stand-in runner
// (tests/fixtures/runner-fake/fake_runner.py) run as a child process, as sweep.py runs bench.py.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHistory } from '../../../electron/services/history';
import { convertRunnerSweep } from '../../../electron/services/history/raw-sweep';
import { tmpDir } from './helpers';

const fake = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'runner-fake', 'fake_runner.py');

function runnerOutput(dir: string, runId: string, mode: string) {
  const spec = path.join(dir, `${runId}.spec.json`);
  fs.writeFileSync(spec, JSON.stringify({ runId, steps: 4, warmup: 1 }));
  const r = spawnSync('python3', [fake, '--spec', spec, '--mode', mode], { encoding: 'utf8' });
  fs.writeFileSync(path.join(dir, `${runId}.jsonl`), r.stdout);
  fs.writeFileSync(path.join(dir, `${runId}.stderr.txt`), r.stderr);
  fs.rmSync(spec);
}

describe('raw sweep → runs file', () => {
  it('converts each run through the store lifecycle, keeping the runner clock, and imports', () => {
    const dir = tmpDir();
    runnerOutput(dir, 'llama-3.2-3b-zero3_offload-mb4-r1', 'ok');
    runnerOutput(dir, 'llama-3.2-3b-superoffload-mb4-r1', 'ok');
    runnerOutput(dir, 'llama-3.2-3b-superoffload-mb4-r2', 'error');
    fs.writeFileSync(path.join(dir, 'notes.jsonl'), '');
    const source = { label: 'sample: test conversion', machine: 'test box', measuredAt: '2026-12-02', note: null };
    const { file, skipped, rejectedLines } = convertRunnerSweep(dir, { source, sweepId: 'sw-sample' });
    expect(skipped).toEqual(['notes.jsonl: the name is not <model>-<strategy>-mb<N>-r<N>']);
    expect(rejectedLines).toBe(0);
    expect(file.source).toEqual(source);
    const byId = Object.fromEntries(file.runs.map((r) => [r.run.id, r]));
    const ok = byId['llama-3.2-3b-superoffload-mb4-r1'];
    expect([ok.run.strategy, ok.run.status, ok.run.repeat_index, ok.run.model, ok.run.owner]).toEqual(['superoffload', 'completed', 0, 'llama-3.2-3b', undefined]);
    const stepLines = fs.readFileSync(path.join(dir, 'llama-3.2-3b-superoffload-mb4-r1.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type": "step"'));
    expect(stepLines.length).toBeGreaterThan(2);
    expect(ok.samples.rows).toHaveLength(stepLines.length); // every step line, warm-up included
    expect(ok.samples.rows[0][ok.samples.columns.indexOf('warmup')]).toBe(1);
    expect(ok.run.tflops_per_gpu).toBe(0.5);
    expect(Math.abs(Date.parse(String(ok.run.created_at)) - Date.now())).toBeLessThan(60_000);
    const failed = byId['llama-3.2-3b-superoffload-mb4-r2'];
    expect([failed.run.status, failed.run.error_class]).toEqual(['failed', 'cuda_oom']);
    expect(byId['llama-3.2-3b-zero3_offload-mb4-r1'].run.strategy).toBe('zero3-offload');

    const store = openHistory(tmpDir());
    expect(store.importRuns(file, { file: 'x.runs.json' }).imported).toHaveLength(3);
    expect(store.listRuns({ tag: 'sample' }).total).toBe(3);
    const c = store.compare(file.runs.map((r) => r.run.id));
    expect(c.groups.map((g) => g.label)).toEqual(['ZeRO-3 Offload', 'SuperOffload']);
    expect(c.headline).toMatch(/within 1 %/); // the stand-in runner reports the same figure for all
    store.close();
  });

  it('says when a folder holds no runner output', () => {
    expect(() => convertRunnerSweep(tmpDir(), { source: { label: 'x', machine: null, measuredAt: null, note: null }, sweepId: 's' })).toThrow(/No runner output/);
  });
});
