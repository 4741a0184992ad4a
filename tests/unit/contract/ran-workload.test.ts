// What a run ran is read back by one rule (contract ran-workload.ts): the spec first, the runner's
// config line only for what the spec lacks. Every reader — the report, the calibration, the stored
// summary — must then give the same world size. Before, the report took the config line first and
// fell back to the spec's GPUs per node, dropping its nodes: a two-node run without a config line
// (one that failed before the runner said) reported half its GPUs.
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
import { openHistory } from '../../../electron/services/history';
import { workloadOf } from '../../../electron/services/reports/normalize';
import { buildRunSpec, storedRunWorkload } from '../../../electron/services/tuner';

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-ran-'));

/** A two-node run of 4 GPUs each, stored with its spec and, where given, the runner's config line. */
function storeTwoNodeRun(config?: Record<string, unknown>) {
  const spec = {
    ...buildRunSpec({ model: 'llama-3.2-3b', seqLen: 1024, microBatch: 2, gradAccum: 3, gpus: 4, nodes: 2 }, 'zero3-offload'),
    runId: 'two-node',
  };
  const store = openHistory(tmpDir());
  const run = { id: spec.runId, model: spec.model.id, strategy: 'zero3-offload', engine: 'deepspeed' as const };
  store.createRun({ ...run, sweepId: null, repeatIndex: 0, steps: 3, warmup: 1, spec });
  if (config) store.recordConfig('two-node', { type: 'config', ...config });
  const detail = store.getRun('two-node', 0)!;
  store.close();
  return detail;
}

/** The world size each reader of the stored run gives. */
function everywhere(detail: ReturnType<typeof storeTwoNodeRun>) {
  const calibration = storedRunWorkload({
    runId: detail.summary.id,
    strategy: detail.summary.strategy,
    spec: detail.spec,
    config: detail.config,
  });
  return {
    report: workloadOf(detail).worldSize,
    calibration: calibration ? worldSize(calibration.workload) : null,
    summary: detail.summary.worldSize,
  };
}

describe('the workload a run ran', () => {
  it('a two-node run without a config line is 2 × GPUs everywhere', () => {
    const detail = storeTwoNodeRun();
    expect(detail.config).toBeNull();
    expect(everywhere(detail)).toEqual({ report: 8, calibration: 8, summary: 8 });
    expect(workloadOf(detail).globalBatch).toBe(2 * 3 * 8);
  });

  it('the spec wins over a config line that says otherwise, in every reader', () => {
    // Before, the report and the calibration took the config line's world size first.
    const detail = storeTwoNodeRun({ worldSize: 4, microBatch: 2, gradAccum: 3, globalBatch: 24, seqLen: 1024 });
    expect(everywhere(detail)).toEqual({ report: 8, calibration: 8, summary: 8 });
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
