// The workload a run ran is stored as columns (micro batch, seq, world size, nodes, precision,
// config hash), from its RunSpec — for new runs, imports of older files and, by migration 4, runs
// stored before — and Compare groups repeats by config hash: one strategy at two micro batches is
// two groups, named by what differs.
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { migrations } from '../../../electron/services/history/migrations';
import { buildRunSpec } from '../../../electron/services/tuner';
import { machine, tmpDir } from './helpers';

const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 2, nodes: 1 };

function addSpecRun(store: HistoryStore, id: string, strategy: string, microBatch: number, stepSeconds: number, repeatIndex = 0) {
  const spec = { ...buildRunSpec({ ...workload, microBatch }, strategy), runId: id };
  store.createRun({ id, sweepId: 'sw-1', repeatIndex, model: spec.model.id, strategy, engine: spec.engine, steps: 3, warmup: 1, spec });
  store.startRun(id, { snapshot: machine('h200-a'), machineId: 'm-h200-a', logPath: null });
  store.finishRun(id, {
    status: 'completed',
    result: {
      stepSeconds: { median: stepSeconds },
      tflopsPerGpu: { median: 10 / stepSeconds },
      tokensPerSecond: { median: 1000 / stepSeconds },
    },
  });
  return spec;
}

describe('workload columns', () => {
  it('come from the spec of a new run', () => {
    const store = openHistory(tmpDir());
    const spec = addSpecRun(store, 'r1', 'zero3-offload', 4, 2);
    expect(store.listRuns({}).runs[0]).toMatchObject({
      microBatch: 4,
      seqLen: 2048,
      worldSize: 2,
      nodes: 1,
      precision: 'bf16',
      configHash: spec.configHash,
    });
    store.close();
  });

  it('are filled on import of a file from before them, from the spec it carries', () => {
    const source = openHistory(tmpDir());
    const spec = addSpecRun(source, 'r1', 'zero3-offload', 2, 2);
    const file = source.exportRuns();
    source.close();
    for (const r of file.runs)
      for (const c of ['micro_batch', 'seq_len', 'world_size', 'nodes', 'precision', 'config_hash'])
        delete (r.run as Record<string, unknown>)[c];
    const target = openHistory(tmpDir());
    target.importRuns(file, { file: 'old.runs.json' });
    expect(target.listRuns({}).runs[0]).toMatchObject({ microBatch: 2, worldSize: 2, configHash: spec.configHash });
    target.close();
  });

  it('are filled by migration 4 for runs stored before (old flat specs: what they carry)', () => {
    const dir = tmpDir();
    const db = new DatabaseSync(path.join(dir, 'history.db'));
    for (const m of migrations.filter((x) => x.version <= 3)) db.exec(m.sql);
    db.exec('PRAGMA user_version = 3');
    db.prepare(
      "INSERT INTO runs (id, created_at, status, model, strategy, engine) VALUES ('old', '2026-01-01T00:00:00Z', 'completed', 'llama-3.2-3b', 'zero3-offload', 'deepspeed')",
    ).run();
    db.prepare('INSERT INTO run_details (run_id, spec, config) VALUES (?, ?, ?)').run(
      'old',
      JSON.stringify({ runId: 'old', seqLen: 4096, microBatch: 8, precision: 'bf16' }),
      JSON.stringify({ worldSize: 4 }),
    );
    db.prepare(
      "INSERT INTO runs (id, created_at, status, model, strategy, engine) VALUES ('bad', '2026-01-01T00:00:01Z', 'completed', 'x', 'y', 'deepspeed')",
    ).run();
    db.prepare('INSERT INTO run_details (run_id, spec) VALUES (?, ?)').run('bad', '{not json');
    db.close();
    const store = openHistory(dir);
    const byId = Object.fromEntries(store.listRuns({}).runs.map((r) => [r.id, r]));
    expect(byId.old).toMatchObject({ microBatch: 8, seqLen: 4096, worldSize: 4, nodes: null, precision: 'bf16', configHash: null });
    expect(byId.bad).toMatchObject({ microBatch: null, configHash: null });
    store.close();
  });
});

describe("a user config's measured gain", () => {
  it('counts the runs of its world size: a two-node run of as many GPUs per node is another workload', () => {
    // The query matched the spec's GPUs per node: the two-node run's tokens/s (over twice the GPUs) stood
    // as the best a one-node configuration had measured here.
    const store = openHistory(tmpDir());
    const add = (id: string, nodes: number, stepSeconds: number) => {
      const spec = { ...buildRunSpec({ ...workload, nodes }, 'zero3-offload'), runId: id };
      store.createRun({
        id,
        sweepId: 'sw-1',
        repeatIndex: 0,
        model: spec.model.id,
        strategy: 'zero3-offload',
        engine: spec.engine,
        steps: 3,
        warmup: 1,
        spec,
      });
      store.startRun(id, { snapshot: machine('h200-a'), machineId: 'm-h200-a', logPath: null });
      store.finishRun(id, {
        status: 'completed',
        result: { stepSeconds: { median: stepSeconds }, tokensPerSecond: { median: 1000 / stepSeconds } },
      });
      return spec;
    };
    const one = add('one-node', 1, 2);
    add('two-node', 2, 1);
    const shape = { seqLen: one.seqLen, hiddenSize: one.model.hiddenSize, numLayers: one.model.numLayers };
    const best = (worldSize: number) => store.bestTokensPerSecondByUserConfig(['m-h200-a'], { ...shape, worldSize }, 'no-such-file');
    expect(best(2)).toEqual({ yours: { tps: null, runs: 0 }, others: { tps: 500, runs: 1 } });
    expect(best(4)).toEqual({ yours: { tps: null, runs: 0 }, others: { tps: 1000, runs: 1 } });
    store.close();
  });
});

describe('Compare groups by config hash', () => {
  it('one strategy at two micro batches is two groups named by the micro batch; repeats of one config one group', () => {
    const store = openHistory(tmpDir());
    addSpecRun(store, 'a1', 'zero3-offload', 1, 4, 0);
    addSpecRun(store, 'b1', 'zero3-offload', 4, 2, 0);
    addSpecRun(store, 'a2', 'zero3-offload', 1, 4, 1);
    addSpecRun(store, 'b2', 'zero3-offload', 4, 2, 1);
    const c = store.compare(['a1', 'b1', 'a2', 'b2']);
    expect(c.groups.map((g) => [g.label, g.runIds])).toEqual([
      ['ZeRO-3 Offload (microBatch 1)', ['a1', 'a2']],
      ['ZeRO-3 Offload (microBatch 4)', ['b1', 'b2']],
    ]);
    expect(new Set(c.groups.map((g) => g.configHash)).size).toBe(2);
    expect(c.configDiff.map((d) => d.path)).toContain('microBatch');
    expect(c.configDiff.map((d) => d.path)).not.toContain('configHash');
    expect(c.headline).toMatch(/ZeRO-3 Offload \(microBatch 4\) was 2\.00× faster/);
    store.close();
  });
});
