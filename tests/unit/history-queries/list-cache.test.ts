// runs/list pages are kept per filter between writes (history/index.ts). A kept page
// must never be stale: every write of the store that changes runs drops them, and so does a
// commit by another connection (another serve, the CLI) through `PRAGMA data_version`.
import { setImmediate as turn } from 'node:timers/promises';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { createBackend } from '../../../electron/services/backend';
import { addRun, storeWith, tmpDir } from './helpers';

describe('runs/list pages kept between writes', () => {
  it('hands out the same frozen page until a write, and a new one after each kind of write', async () => {
    const store = storeWith([
      { id: 'a', strategy: 'zero3-offload', tflops: 100 },
      { id: 'b', strategy: 'superoffload', tflops: 150 },
    ]);
    const first = store.listRuns({ limit: 10 });
    expect(store.listRuns({ limit: 10 })).toBe(first);
    expect(
      Object.isFrozen(first) && Object.isFrozen(first.runs) && Object.isFrozen(first.runs[0]) && Object.isFrozen(first.runs[0].tags),
    ).toBe(true);
    expect(() => (first.runs as unknown[]).push(1)).toThrow();
    expect(store.listRuns({ limit: 1 })).not.toBe(first); // another filter, another page

    // samples do not change a summary: the page stays
    store.appendSamples('a', [
      {
        step: 9,
        warmup: false,
        stepSeconds: 1,
        tflopsPerGpu: 1,
        tokensPerSecond: 1,
        loss: 1,
        gpuAllocatedBytes: null,
        gpuReservedBytes: null,
        gpuPeakBytes: null,
        hostRssBytes: null,
      },
    ]);
    expect(store.listRuns({ limit: 10 })).toBe(first);

    store.updateRun('a', { notes: 'edited' });
    const edited = store.listRuns({ limit: 10 });
    expect(edited).not.toBe(first);
    expect(edited.runs.find((r) => r.id === 'a')?.notes).toBe('edited');

    addRun(store, { id: 'c', strategy: 'superoffload', tflops: 120 });
    expect(
      store
        .listRuns({ limit: 10 })
        .runs.map((r) => r.id)
        .sort(),
    ).toEqual(['a', 'b', 'c']);

    store.deleteRuns(['b']);
    expect(
      store
        .listRuns({ limit: 10 })
        .runs.map((r) => r.id)
        .sort(),
    ).toEqual(['a', 'c']);

    // another connection's commit (the CLI, a second serve) — seen from the next event-loop turn on
    const other = new DatabaseSync(path.join(store.dataDir, 'history.db'));
    other.exec("UPDATE runs SET notes = 'from elsewhere' WHERE id = 'c'");
    other.close();
    await turn();
    expect(store.listRuns({ limit: 10 }).runs.find((r) => r.id === 'c')?.notes).toBe('from elsewhere');
    store.close();
  });

  it('backend: a kept page is validated once and answered as the same frozen object', async () => {
    const dataDir = tmpDir();
    const backend = createBackend({ dataDir, transport: 'cli' });
    const a = await backend.invoke('runs/list', { limit: 5 });
    const b = await backend.invoke('runs/list', { limit: 5 });
    expect(b).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    await backend.close();
  });
});
