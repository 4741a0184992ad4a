// Filters, repeat groups, delete and annotate on a real store.
import { describe, expect, it } from 'vitest';
import { addRun, storeWith } from './helpers';

describe('filters and repeat groups', () => {
  it('filters by model, strategy, machine, status, tag and date', () => {
    const store = storeWith([
      { id: 'a', strategy: 'zero3-offload', tflops: 100, tags: ['nightly'] },
      { id: 'b', strategy: 'superoffload', tflops: 150, host: 'box-b' },
      { id: 'c', strategy: 'superoffload', tflops: 1, status: 'failed', model: 'qwen3-14b' },
    ]);
    const ids = (f: Parameters<typeof store.listRuns>[0]) =>
      store
        .listRuns(f)
        .runs.map((r) => r.id)
        .sort();
    expect(ids({ strategy: 'superoffload' })).toEqual(['b', 'c']);
    expect(ids({ model: 'qwen3-14b' })).toEqual(['c']);
    expect(ids({ status: 'completed' })).toEqual(['a', 'b']);
    expect(ids({ machineId: 'm-box-b' })).toEqual(['b']);
    expect(ids({ tag: 'nightly' })).toEqual(['a']);
    expect(ids({ since: '2000-01-01', until: '2999-01-01' })).toEqual(['a', 'b', 'c']);
    expect(ids({ since: '2999-01-01' })).toEqual([]);
    store.close();
  });

  it('groups repeats over the history with statistics', () => {
    const store = storeWith([
      { id: 'a1', strategy: 'superoffload', tflops: 140, repeatIndex: 0 },
      { id: 'a2', strategy: 'superoffload', tflops: 160, repeatIndex: 1 },
      { id: 'a3', strategy: 'superoffload', tflops: 150, repeatIndex: 2 },
      { id: 'other-sweep', strategy: 'superoffload', tflops: 10, sweepId: 'sweep-2' },
    ]);
    const groups = store.repeatGroups({ strategy: 'superoffload' });
    expect(groups.map((g) => g.runIds)).toEqual([['a1', 'a2', 'a3'], ['other-sweep']]);
    expect(groups[0].stats.tflopsPerGpu).toMatchObject({ n: 3, median: 150, min: 140, max: 160, stdev: 10 });
    store.close();
  });
});

describe('delete and annotate', () => {
  it('deletes runs with their samples and details, and orphaned snapshots', () => {
    const store = storeWith([
      { id: 'a', strategy: 'zero3-offload', tflops: 100 },
      { id: 'b', strategy: 'superoffload', tflops: 150, host: 'box-b' },
    ]);
    const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT COUNT(*) AS n FROM snapshots')).toBe(2);
    expect(store.deleteRuns(['b'])).toBe(1);
    expect(store.listRuns().runs.map((r) => r.id)).toEqual(['a']);
    expect(count("SELECT COUNT(*) AS n FROM samples WHERE run_id = 'b'")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM run_details WHERE run_id = 'b'")).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM snapshots')).toBe(1);
    expect(count("SELECT COUNT(*) AS n FROM samples WHERE run_id = 'a'")).toBe(5);
    store.close();
  });

  it('refuses to delete a run that is still running', () => {
    const store = storeWith([]);
    store.createRun({
      id: 'live',
      sweepId: 's',
      repeatIndex: 0,
      model: 'm',
      strategy: 'superoffload',
      engine: 'deepspeed',
      steps: 1,
      warmup: 0,
    });
    expect(() => store.deleteRuns(['live'])).toThrow(/still queued or running/);
    expect(store.listRuns().total).toBe(1);
    store.close();
  });

  it('edits tags (trimmed, unique) and notes', () => {
    const store = storeWith([]);
    addRun(store, { id: 'a', strategy: 'superoffload', tflops: 1, tags: ['x'] });
    const updated = store.updateRun('a', { tags: [' fast ', 'fast', 'gh200'], notes: 'bound to NUMA 0' });
    expect([updated.tags, updated.notes]).toEqual([['fast', 'gh200'], 'bound to NUMA 0']);
    expect(store.updateRun('a', { notes: 'n2' }).tags).toEqual(['fast', 'gh200']);
    expect(store.listRuns({ tag: 'gh200' }).total).toBe(1);
    expect(() => store.updateRun('zz', { notes: '' })).toThrow(/No stored run/);
    store.close();
  });
});
