// The documents stored with a run (spec, hello, config, result, prediction, machine
// snapshot) are parsed once, where history reads them, as lenient readings of their owners' schemas
// (contract stored.ts). Older documents load, unknown fields are kept, a field of the wrong type reads
// as absent, and a document that does not parse at all keeps its run and says so with what was stored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { readStoredValue, RunDetailSchema, type StoredSpec } from '../../../electron/contract';
import { openHistory, readRunsFile } from '../../../electron/services/history';
import { buildRunSpec } from '../../../electron/services/tuner';

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-stored-'));

function storeRun(dir: string, id: string, details: Record<string, string | null>) {
  const store = openHistory(dir);
  store.createRun({
    id,
    sweepId: null,
    repeatIndex: 0,
    model: 'llama-3.2-3b',
    strategy: 'zero3-offload',
    engine: 'deepspeed',
    steps: 3,
    warmup: 1,
  });
  store.close();
  const db = new DatabaseSync(path.join(dir, 'history.db'));
  for (const [column, text] of Object.entries(details)) db.prepare(`UPDATE run_details SET ${column} = ? WHERE run_id = ?`).run(text, id);
  db.close();
  return openHistory(dir);
}

describe('stored documents', () => {
  it('a current spec reads back as it was stored, typed, and nothing is unparsed', () => {
    const spec = {
      ...buildRunSpec({ model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 1, nodes: 1 }, 'zero3-offload'),
      runId: 'r1',
    };
    const store = storeRun(tmpDir(), 'r1', { spec: JSON.stringify(spec) });
    const d = store.getRun('r1', 0)!;
    expect(d.spec).toEqual(spec);
    const typed: StoredSpec = d.spec!;
    expect(typed.seqLen).toBe(2048);
    expect(typed.model?.hiddenSize).toBe(spec.model.hiddenSize);
    expect(d.unparsed).toBeUndefined();
    // the wire's schema takes the reading unchanged
    expect(RunDetailSchema.parse(d).spec).toEqual(spec);
    store.close();
  });

  it('an older flat spec and a newer one with fields this version does not know load; the unknown fields are kept', () => {
    const old = { runId: 'old', seqLen: 4096, microBatch: 8, precision: 'bf16', worldSize: 4 };
    const newer = { specVersion: 2, seqLen: 1024, precision: 'fp8', somethingNew: { a: 1 } };
    const a = readStoredValue('spec', old);
    expect(a).toEqual({ value: old, unparsed: null });
    expect(a.value?.worldSize).toBe(4);
    const b = readStoredValue('spec', newer);
    expect(b).toEqual({ value: newer, unparsed: null });
    expect(b.value?.specVersion).toBe(2);
  });

  it('a field of the wrong type reads as absent, the rest is typed, and the raw document is kept beside it', () => {
    const raw = { seqLen: 'long', microBatch: 2, model: { hiddenSize: 'wide', numLayers: 28 } };
    const store = storeRun(tmpDir(), 'r2', {
      spec: JSON.stringify(raw),
      result: JSON.stringify({ v: 1, peakGpuBytes: 5e9, stepSeconds: { median: 2, min: 1, max: 3, mean: 2 } }),
    });
    const d = store.getRun('r2', 0)!;
    expect(d.spec?.seqLen).toBeUndefined();
    expect(d.spec?.microBatch).toBe(2);
    expect(d.spec?.model?.numLayers).toBe(28);
    expect(d.spec?.model?.hiddenSize).toBeUndefined();
    expect(d.result?.stepSeconds?.median).toBe(2);
    expect(d.unparsed).toEqual([{ document: 'spec', reason: expect.stringMatching(/seqLen: .*hiddenSize: |hiddenSize: .*seqLen: /), raw }]);
    store.close();
  });

  it('a document that is not JSON, or not an object, keeps its run: null, named in unparsed with the stored text', () => {
    const store = storeRun(tmpDir(), 'r3', { spec: '{not json', hello: '42' });
    expect(store.listRuns({}).runs.map((r) => r.id)).toEqual(['r3']);
    const d = store.getRun('r3', 0)!;
    expect(d.spec).toBeNull();
    expect(d.hello).toBeNull();
    expect(d.unparsed).toEqual([
      { document: 'spec', reason: 'not JSON', raw: '{not json' },
      { document: 'hello', reason: 'not an object', raw: 42 },
    ]);
    expect(RunDetailSchema.parse(d).unparsed).toHaveLength(2);
    store.close();
  });

  it('every bundled sample run loads with each of its documents parsed, none unparsed', () => {
    const dir = path.join(__dirname, '../../../resources/samples');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.runs.json'));
    expect(files.length).toBeGreaterThan(5);
    const store = openHistory(tmpDir());
    let runs = 0;
    for (const f of files) store.importRuns(readRunsFile(path.join(dir, f)), { file: f });
    for (const r of store.listRuns({ limit: 100000 }).runs) {
      const d = store.getRun(r.id, 0)!;
      expect(d.unparsed, `${r.id}: ${JSON.stringify(d.unparsed?.map((u) => [u.document, u.reason]))}`).toBeUndefined();
      expect(d.spec?.seqLen ?? d.config?.seqLen, r.id).toBeGreaterThan(0);
      runs++;
    }
    expect(runs).toBeGreaterThan(50);
    store.close();
  });
});
