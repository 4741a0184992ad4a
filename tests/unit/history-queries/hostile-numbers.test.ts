// Hostile and broken data: numbers an imported runs file (or a row stored by
// an older version) carries beyond what the app can compute with. Real SQLite, the real backend
// (so every answer is checked against the contract's response schema, as a client sees it).
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunsFile } from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { openHistory, HistoryError } from '../../../electron/services/history';
import { repeatStats, deltaPercent, speedup } from '../../../electron/services/history/stats';
import { storeWith, tmpDir } from './helpers';

const TWO_53 = 2 ** 53; // 9007199254740992: the first whole number JavaScript cannot hold exactly
const INT64_MAX = 2 ** 63 - 1; // 9223372036854775807 (as a double: 9223372036854775808)

/** A real runs file: two finished runs of two strategies, exported from a store built by the lifecycle. */
function goodFile(): RunsFile {
  const source = storeWith([
    { id: 'z1', strategy: 'zero3-offload', tflops: 100 },
    { id: 's1', strategy: 'superoffload', tflops: 150 },
  ]);
  const file = source.exportRuns();
  source.close();
  for (const r of file.runs) Object.assign(r.details!.spec as object, { microBatch: 1, nodes: 1, gpus: 1 });
  return file;
}

const backends: Backend[] = [];
function backend(dataDir = tmpDir()): Backend {
  const b = createBackend({ dataDir, transport: 'cli' });
  backends.push(b);
  return b;
}
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

const importText = (b: Backend, file: RunsFile, name = 'x.runs.json') => b.invoke('runs/import', { content: JSON.stringify(file), name });
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e as { code: string; message: string; field?: string },
  );

/** runs/list, runs/get of every listed run, runs/export and compare/runs: all answer (schema-checked). */
async function historyAnswers(b: Backend): Promise<string[]> {
  const { runs } = await b.invoke('runs/list', {});
  for (const r of runs) await b.invoke('runs/get', { id: r.id, logLines: 0 });
  const out = path.join(tmpDir(), 'all.runs.json');
  await b.invoke('runs/export', { path: out });
  if (runs.length) await b.invoke('compare/runs', { ids: runs.map((r) => r.id) });
  return runs.map((r) => r.id);
}

describe('a spec count beyond 2^53 never reaches the history', () => {
  it.each([
    ['seqLen', TWO_53],
    ['microBatch', TWO_53],
    ['nodes', TWO_53],
    ['gpus', TWO_53],
    ['seqLen', INT64_MAX],
    ['gpus', INT64_MAX],
  ])('details.spec.%s = %d: the import is refused naming the field, nothing is stored, history still answers', async (field, value) => {
    const b = backend();
    const file = goodFile();
    (file.runs[1].details!.spec as Record<string, unknown>)[field] = value;
    const error = await refusal(importText(b, file));
    expect(error).toMatchObject({ code: 'bad_file', field: 'content' });
    expect(error!.message).toContain(
      `x.runs.json: runs[1].details.spec.${field} is out of range: ${value} (at most 9007199254740991). Nothing was imported`,
    );
    expect(await historyAnswers(b)).toEqual([]); // not even the good first run
    expect(await importText(b, goodFile())).toMatchObject({ imported: expect.arrayContaining(['z1', 's1']) });
    expect(await historyAnswers(b)).toHaveLength(2);
  });

  it('the config world size, a negative count and a GPUs × nodes product beyond 2^53 are refused too', async () => {
    const b = backend();
    const cases: [(f: RunsFile) => void, string][] = [
      [(f) => (f.runs[0].details!.config = { worldSize: TWO_53 }), 'runs[0].details.config.worldSize is out of range: 9007199254740992'],
      [
        (f) => ((f.runs[0].details!.spec as Record<string, unknown>).seqLen = -4096),
        'runs[0].details.spec.seqLen is out of range: -4096 (at least 0)',
      ],
      [
        (f) => ((f.runs[0].details!.spec as Record<string, unknown>).microBatch = 1.5),
        'runs[0].details.spec.microBatch must be an integer (got 1.5)',
      ],
      [
        (f) => Object.assign(f.runs[0].details!.spec as object, { gpus: 2 ** 30, nodes: 2 ** 30 }),
        'runs[0].details.spec.gpus × nodes is out of range: 1152921504606847000',
      ],
    ];
    for (const [change, message] of cases) {
      const file = goodFile();
      change(file);
      expect((await refusal(importText(b, file)))?.message).toContain(message);
    }
    expect(await historyAnswers(b)).toEqual([]);
  });

  it('a spec from any other source (a new run) stores no count out of range: the column stays empty', async () => {
    const dir = tmpDir();
    const store = openHistory(dir);
    const spec = { runId: 'r1', seqLen: TWO_53, microBatch: INT64_MAX, gpus: 2 ** 30, nodes: 2 ** 30 };
    store.createRun({
      id: 'r1',
      sweepId: null,
      repeatIndex: 0,
      model: 'm',
      strategy: 'zero3-offload',
      engine: 'deepspeed',
      steps: 1,
      warmup: 0,
      spec,
    });
    store.finishRun('r1', { status: 'completed', result: null });
    expect(store.listRuns().runs[0]).toMatchObject({ seqLen: null, microBatch: null, nodes: 2 ** 30, worldSize: null });
    store.close();
    expect(await historyAnswers(backend(dir))).toEqual(['r1']);
  });

  it('a row an older version stored (seq_len 2^53, micro_batch 2^63 − 1 as a float) is repaired on open: list, get, export answer again', async () => {
    const dir = tmpDir();
    storeWith(
      [
        { id: 'z1', strategy: 'zero3-offload', tflops: 100 },
        { id: 's1', strategy: 'superoffload', tflops: 150 },
      ],
      dir,
    ).close();
    // What importing `seqLen: 2^53` / `2^63 − 1` stored before the bound, at the schema of then.
    const raw = new DatabaseSync(path.join(dir, 'history.db'));
    raw
      .prepare('UPDATE runs SET seq_len = ?, micro_batch = ?, world_size = -3 WHERE id = ?')
      .run(BigInt(TWO_53), 9.223372036854776e18, 's1');
    raw.exec('PRAGMA user_version = 4');
    raw.close();
    const b = backend(dir);
    expect(await historyAnswers(b)).toHaveLength(2);
    const s1 = (await b.invoke('runs/get', { id: 's1', logLines: 0 })).summary;
    expect(s1).toMatchObject({ seqLen: 4096, microBatch: null, worldSize: null }); // refilled from the spec where it is usable
  });

  it('a whole number too large to read that a hand edit stored is a stored-data error saying what to do, not a RangeError', () => {
    const dir = tmpDir();
    storeWith([{ id: 'z1', strategy: 'zero3-offload', tflops: 100 }], dir).close();
    const raw = new DatabaseSync(path.join(dir, 'history.db'));
    raw.prepare('UPDATE runs SET repeat_index = ? WHERE id = ?').run(BigInt(TWO_53) + 1n, 'z1');
    raw.close();
    const store = openHistory(dir);
    let error: unknown;
    try {
      store.listRuns();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HistoryError);
    expect(error).toMatchObject({
      code: 'stored_data',
      message: expect.stringMatching(
        /history\.db: a row holds the whole number 9007199254740993, too large to read exactly\..*Delete the run/,
      ),
    });
    store.close();
  });
});

describe('finite but huge figures cannot break compare/runs', () => {
  const col = (f: RunsFile, r: number, c: string) => f.runs[r].samples.columns.indexOf(c);
  it.each<[string, (f: RunsFile, v: number) => void]>([
    ['runs[0].run.tflops_per_gpu', (f, v) => (f.runs[0].run.tflops_per_gpu = v)],
    ['runs[0].run.step_seconds', (f, v) => (f.runs[0].run.step_seconds = v)],
    ['runs[0].run.tokens_per_second', (f, v) => (f.runs[0].run.tokens_per_second = v)],
    ['runs[0].run.peak_gpu_bytes', (f, v) => (f.runs[0].run.peak_gpu_bytes = v)],
    ['runs[0].run.peak_host_bytes', (f, v) => (f.runs[0].run.peak_host_bytes = v)],
    ['runs[1].run.predicted_step_seconds', (f, v) => (f.runs[1].run.predicted_step_seconds = v)],
    ['runs[0].samples.rows[2] (step_seconds)', (f, v) => (f.runs[0].samples.rows[2][col(f, 0, 'step_seconds')] = v)],
    ['runs[0].samples.rows[2] (tflops_per_gpu)', (f, v) => (f.runs[0].samples.rows[2][col(f, 0, 'tflops_per_gpu')] = v)],
    ['runs[1].samples.rows[0] (gpu_peak)', (f, v) => (f.runs[1].samples.rows[0][col(f, 1, 'gpu_peak')] = v)],
    ['runs[0].details.result.peakNvmeBytes', (f, v) => Object.assign(f.runs[0].details!.result as object, { peakNvmeBytes: v })],
    [
      'runs[0].snapshot.body.disks[0].sizeBytes',
      (f, v) => ((f.runs[0].snapshot!.body as { disks: { sizeBytes: number }[] }).disks[0].sizeBytes = v),
    ],
  ])('%s = 1.7e308 (or −1) is refused with the field named, nothing stored', async (where, set) => {
    const b = backend();
    for (const [value, bound] of [
      [1.7e308, 'at most'],
      [-1, 'at least 0'],
    ] as const) {
      const file = goodFile();
      set(file, value);
      const error = await refusal(importText(b, file));
      expect(error?.code).toBe('bad_file');
      expect(error?.message).toContain(`${where} is out of range: ${value} (${bound}`);
    }
    expect(await historyAnswers(b)).toEqual([]);
  });

  it('figures stored before the bound (1.7e308 repeats against a 1e-300 baseline) still compare: every figure finite', async () => {
    const dir = tmpDir();
    storeWith(
      [
        { id: 'z1', strategy: 'zero3-offload', tflops: 100 },
        { id: 's1', strategy: 'superoffload', tflops: 150 },
        { id: 's2', strategy: 'superoffload', tflops: 150, repeatIndex: 1 },
      ],
      dir,
    ).close();
    const raw = new DatabaseSync(path.join(dir, 'history.db'));
    raw
      .prepare(
        "UPDATE runs SET tflops_per_gpu = 1.7e308, tokens_per_second = 1.7e308, step_seconds = 1e-300, peak_gpu_bytes = 1.7e308 WHERE id IN ('s1', 's2')",
      )
      .run();
    raw.prepare("UPDATE runs SET tflops_per_gpu = 1e-300, peak_gpu_bytes = -1.7e308 WHERE id = 'z1'").run();
    raw.close();
    const b = backend(dir);
    const c = await b.invoke('compare/runs', { ids: ['z1', 's1', 's2'], baselineId: 'z1' }); // answered bad_response before
    const s = c.groups.find((g) => g.runIds.includes('s1'))!;
    expect(s.stats.tflopsPerGpu).toMatchObject({ n: 2, median: 1.7e308, mean: 1.7e308, stdev: 0 });
    expect(s.deltaPct.tflopsPerGpu).toBeNull(); // 1.7e308 against 1e-300 is beyond any number
    expect(s.speedup).toBeNull();
    expect(await historyAnswers(b)).toHaveLength(3);
  });

  it('repeatStats, deltaPercent and speedup stay finite at the edges of a double', () => {
    const s = repeatStats([1.7e308, 1.7e308, -1.7e308, 1.7e308])!;
    for (const k of ['median', 'mean', 'stdev', 'min', 'max'] as const) expect(Number.isFinite(s[k]), k).toBe(true);
    expect(s.median).toBe(1.7e308);
    expect(s.mean).toBeCloseTo(0.85e308, -300);
    expect(s.stdev / 1.7e308).toBeCloseTo(1, 12); // Σ(x − mean)² / 3 = 4 · 0.85² · 1.7e308² … → 1.7e308
    expect(repeatStats([1.7e308, -1.7e308])).toMatchObject({ median: 0, mean: 0, stdev: Number.MAX_VALUE });
    expect(repeatStats([1, 2, 3])).toMatchObject({ median: 2, mean: 2, stdev: 1 }); // ordinary figures exactly as before
    expect(deltaPercent(1.7e308, 1e-300)).toBeNull();
    expect(speedup({ better: 'higher' }, 1.7e308, 1e-300)).toBeNull();
    expect(speedup({ better: 'lower' }, 1e-300, 1.7e308)).toBeNull();
  });

  it('every bundled sample dataset still imports under the bounds', async () => {
    const b = backend();
    const loaded = await b.invoke('samples/load', {});
    expect(loaded.imported.length).toBeGreaterThan(10);
    expect(loaded.files.length).toBe(fs.readdirSync(path.dirname(loaded.files[0])).filter((f) => f.endsWith('.runs.json')).length);
  });
});
