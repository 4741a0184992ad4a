// Time estimates count the engine's start-up per run as measured on the machine (the
// wizard once assumed a flat 45 s where a tiny CPU run starts in ~14 s and an 8B one on the H200 in ~100 s).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { buildMachine } from '../../../electron/services/hardware';
import { loadHost } from '../hardware/fixture-host';

const backends: Backend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

describe('engine start-up per run, measured', () => {
  it("is wall time less step time over the machine kind's runs, of the planned model where there are any", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-start-'));
    const machine = buildMachine(loadHost('h200-sxm-x86'));
    const backend = createBackend({ dataDir, transport: 'cli' });
    backends.push(backend);
    const before = await backend.invoke('plan/compute', {
      workload: { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 8, gpus: 1 },
      machine,
    });
    expect(before.engineStart).toBeUndefined(); // no runs: the estimates assume one, and say so
    await backend.invoke('samples/load', {});
    const small = await backend.invoke('plan/compute', {
      workload: { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 8, gpus: 1 },
      machine,
    });
    const big = await backend.invoke('plan/compute', {
      workload: { model: 'llama-3.1-8b', seqLen: 4096, microBatch: 8, gpus: 1 },
      machine,
    });
    // the H200 samples (runner clocks): 3B runs start in well under two minutes, 8B ones take longer
    expect(small.engineStart).toMatchObject({ sameModel: true });
    expect(small.engineStart!.runs).toBeGreaterThanOrEqual(10);
    expect(small.engineStart!.seconds).toBeGreaterThan(10);
    expect(small.engineStart!.seconds).toBeLessThan(120);
    expect(big.engineStart).toMatchObject({ sameModel: true });
    expect(big.engineStart!.seconds).toBeGreaterThan(small.engineStart!.seconds);
    // a model never run here falls back to every run of the kind
    const other = await backend.invoke('plan/compute', {
      workload: { model: 'qwen2.5-7b', seqLen: 2048, microBatch: 1, gpus: 1 },
      machine,
    });
    expect(other.engineStart?.sameModel).toBe(false);
  });
});
