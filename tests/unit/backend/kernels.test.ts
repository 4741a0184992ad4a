// Which plans probe this host's GPU (backend handlers/kernels.ts), and what a plan says when none does: a
// machine from a file is not this host, a machine without a GPU has nothing to probe, an architecture given by
// its numbers alone has no config.json to build, and the probe can be switched off. plan/compute carries the
// reason into the plan's notes and PlanResult.kernels; the plan itself never fails for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Machine } from '../../../electron/contract';
import { createBackend } from '../../../electron/services/backend';
import type { BackendContext } from '../../../electron/services/backend/context';
import { kernelsForPlan, NO_KERNEL_PROBE_ENV, probeConfigOf } from '../../../electron/services/backend/handlers/kernels';
import { catalog, parseWorkload } from '../../../electron/services/tuner';
import { h200Machine } from '../tuner/h200-machine';

const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-kernels-'));
const ctx = { dataDir: dataDir() } as BackendContext;
const llama = catalog().models.find((m) => m.id === 'llama-3.2-1b')!;
const workload = parseWorkload({ model: 'llama-3.2-1b', seqLen: 2048, microBatch: 1, gpus: 1 });
const noGpu: Machine = { ...h200Machine(), gpus: [] };

describe('the kernel probe for a plan', () => {
  it('builds a preset from its stored config.json and an import from its own; not numbers alone', () => {
    expect(probeConfigOf(llama)).toMatchObject({ model_type: 'llama', hidden_size: 2048, num_hidden_layers: 16 });
    expect(probeConfigOf({ ...llama, hfConfig: { model_type: 'phi3' } })).toEqual({ model_type: 'phi3' });
    expect(probeConfigOf({ ...llama, numLayers: 20 })).toBeNull();
  });

  it('says why it is not run: a file’s machine, no GPU, switched off, no config.json', async () => {
    const ask = kernelsForPlan(ctx, {});
    expect(await ask(llama, workload, h200Machine(), 'file')).toEqual({
      reason: 'the plan is for a machine from a file, not this host: its GPU cannot be probed from here',
    });
    expect(await ask(llama, workload, noGpu, 'detected')).toEqual({ reason: 'no GPU on this machine' });
    expect(await kernelsForPlan(ctx, { [NO_KERNEL_PROBE_ENV]: '1' })(llama, workload, h200Machine(), 'detected')).toEqual({
      reason: 'the kernel probe is switched off (OFFLOAD_STUDIO_NO_KERNEL_PROBE=1)',
    });
    expect(await ask({ ...llama, numLayers: 20 }, workload, h200Machine(), 'detected')).toEqual({
      reason: 'no config.json to build Llama 3.2 1B from (an architecture given by its numbers alone)',
    });
  });

  it('does not probe a GPU a run is training on', async () => {
    const busy = { dataDir: dataDir(), history: { listRuns: () => ({ runs: [], total: 1 }) } } as unknown as BackendContext;
    expect(await kernelsForPlan(busy, {})(llama, workload, h200Machine(), 'detected')).toEqual({
      reason: 'a run is training on this machine now: its GPU was not probed (the timings would be shared with that run)',
    });
  });

  it("plan/compute for a loaded machine file rests on the catalogue's constants and says why", async () => {
    const backend = createBackend({
      dataDir: dataDir(),
      transport: 'server',
      machineFile: path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86/machine.json'),
    });
    try {
      const plan = await backend.invoke('plan/compute', { workload: { model: 'tiny-llama', seqLen: 64, microBatch: 1, gpus: 1 } });
      expect(plan.kernels).toEqual({
        source: 'catalogue',
        reason: 'the plan is for a machine from a file, not this host: its GPU cannot be probed from here',
      });
      expect(plan.notes).toContainEqual(expect.stringMatching(/^Step compute and activation memory: the catalogue's constants/));
    } finally {
      await backend.close();
    }
  });
});
