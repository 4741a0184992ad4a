// What a run ran is read back by one rule (contract ran-workload.ts): the spec first, the runner's
// config line only for what the spec lacks. Every reader — the runs list, the run's detail, the CSV,
// the report, the calibration — must then give the same world size. Before, the report took the
// config line first and fell back to the spec's GPUs per node, dropping its nodes: a two-node run
// without a config line (one that failed before the runner said) reported half its GPUs. And the
// list's columns were filled once, by SQL, when the run was created: a run older than the spec
// listed no world size though its report read the runner's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  globalBatch,
  ranWorkloadOf,
  tokensPerStep,
  worldSize,
  type StoredConfig,
  type StoredHello,
  type StoredSpec,
} from '../../../electron/contract';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { createReports, RUN_COLUMNS } from '../../../electron/services/reports';
import { workloadOf } from '../../../electron/services/reports/normalize';
import { parseCsv } from '../reports/csv-parse';
import { buildRunSpec, storedRunWorkload } from '../../../electron/services/tuner';

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-ran-'));

/** A two-node run of 4 GPUs each, stored with its spec and, where given, the runner's config line; it ends failed. */
function storeTwoNodeRun(config?: Record<string, unknown>): HistoryStore {
  const spec = {
    ...buildRunSpec({ model: 'llama-3.2-3b', seqLen: 1024, microBatch: 2, gradAccum: 3, gpus: 4, nodes: 2 }, 'zero3-offload'),
    runId: 'two-node',
  };
  const store = openHistory(tmpDir());
  const run = { id: spec.runId, model: spec.model.id, strategy: 'zero3-offload', engine: 'deepspeed' as const };
  store.createRun({ ...run, sweepId: null, repeatIndex: 0, steps: 3, warmup: 1, spec });
  if (config) store.recordConfig('two-node', { type: 'config', ...config });
  store.finishRun('two-node', { status: 'failed', errorClass: 'distributed', errorMessage: 'the rendezvous failed' });
  return store;
}

/** The world size each reader of the stored run gives: history's list and detail, the CSV, the report, the calibration. */
async function everywhere(store: HistoryStore) {
  const detail = store.getRun('two-node', 0)!;
  const calibration = storedRunWorkload({
    runId: detail.summary.id,
    strategy: detail.summary.strategy,
    spec: detail.spec,
    config: detail.config,
  });
  const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (ids, b) => store.compare(ids, b) });
  const csvPath = path.join(tmpDir(), 'runs.csv');
  await reports.export({ runIds: ['two-node'], format: 'csv', path: csvPath });
  const [header, row] = parseCsv(fs.readFileSync(csvPath, 'utf8'));
  expect(header).toEqual(RUN_COLUMNS);
  const cell = (name: string) => Number(row[header.indexOf(name)]);
  return {
    list: store.listRuns({}).runs[0].worldSize,
    detail: detail.summary.worldSize,
    // the CSV's gpus is per node, as --gpus is; nodes beside it
    csv: cell('gpus') * cell('nodes'),
    report: workloadOf(detail).worldSize,
    calibration: calibration ? worldSize(calibration.workload) : null,
  };
}

const EIGHT = { list: 8, detail: 8, csv: 8, report: 8, calibration: 8 };

describe('the workload a run ran', () => {
  it('a two-node run without a config line is 2 × GPUs everywhere', async () => {
    const store = storeTwoNodeRun();
    const detail = store.getRun('two-node', 0)!;
    expect(detail.config).toBeNull();
    expect(await everywhere(store)).toEqual(EIGHT);
    expect(workloadOf(detail).globalBatch).toBe(2 * 3 * 8);
    store.close();
  });

  it('the spec wins over a config line that says otherwise, in every reader', async () => {
    // Before, the report and the calibration took the config line's world size first.
    const store = storeTwoNodeRun({ worldSize: 4, microBatch: 2, gradAccum: 3, globalBatch: 24, seqLen: 1024 });
    expect(await everywhere(store)).toEqual(EIGHT);
    store.close();
  });

  it("a run older than the spec lists the runner's world size, as its report reads it", () => {
    const store = openHistory(tmpDir());
    // a flat spec of its time: no GPUs per node, no nodes; the runner's config line said the rest
    const spec = { runId: 'old', seqLen: 512, microBatch: 2 };
    store.createRun({
      id: 'old',
      model: 'gpt2',
      strategy: 'zero3-offload',
      engine: 'deepspeed',
      sweepId: null,
      repeatIndex: 0,
      steps: 3,
      warmup: 1,
      spec,
    });
    store.recordConfig('old', { type: 'config', worldSize: 6, nodes: 2, microBatch: 2, gradAccum: 1, seqLen: 512, precision: 'fp16' });
    store.finishRun('old', { status: 'completed', result: { stepSeconds: { median: 1 } } });
    const detail = store.getRun('old', 0)!;
    expect(workloadOf(detail)).toMatchObject({ worldSize: 6, gpus: 3, nodes: 2, precision: 'fp16' });
    expect(store.listRuns({}).runs[0]).toMatchObject({ worldSize: 6, nodes: 2, seqLen: 512, microBatch: 2, precision: 'fp16' });
    store.close();
  });

  it('the config line fills a run older than the spec, and a field the spec never carried', () => {
    const config = { worldSize: 6, nodes: 2, microBatch: 1, gradAccum: 2, seqLen: 512, params: 1e9, precision: 'fp16' } as StoredConfig;
    expect(ranWorkloadOf({ spec: null, config })).toMatchObject({
      worldSize: 6,
      gpus: 3,
      nodes: 2,
      globalBatch: 12,
      params: 1e9,
      precision: 'fp16',
    });
    // a flat older spec named its world size
    const flat = { seqLen: 4096, microBatch: 8, worldSize: 4 } as StoredSpec;
    expect(ranWorkloadOf({ spec: flat, config })).toMatchObject({
      worldSize: 4,
      seqLen: 4096,
      microBatch: 8,
      gradAccum: 2,
      globalBatch: 64,
    });
    // nothing said: one process, and the runner's hello where it said more
    expect(ranWorkloadOf({}).worldSize).toBe(1);
    expect(ranWorkloadOf({ hello: { worldSize: 2 } as StoredHello }).worldSize).toBe(2);
  });

  it('world size, global batch and tokens per step are the products of the counts', () => {
    const w = { gpus: 4, nodes: 2, microBatch: 2, gradAccum: 3, seqLen: 1024 };
    expect(worldSize(w)).toBe(8);
    expect(globalBatch(w)).toBe(48);
    expect(tokensPerStep(w)).toBe(48 * 1024);
    // a world size already known (a DeepSpeed config's) is taken as it is
    expect(globalBatch({ microBatch: 2, gradAccum: 3, worldSize: 5 })).toBe(30);
  });
});
