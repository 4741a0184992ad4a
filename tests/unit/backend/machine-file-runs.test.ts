// The machine a plan is for, through `serve --machine FILE` (and the app's --machine): the backend then shows and
// plans for a saved detect --json — another machine's. Its plans said 'detected' (the Plan page:
// "this machine", Run offered), and runs/start and tune/start trained here against that machine's
// plan, stored under its machineId. Now its plans say 'file' and runs and tunes are refused with what
// to do; nothing is stored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBackend } from '../../../electron/services/backend';

const h200File = path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86/machine.json');
const workload = { model: 'tiny-llama', seqLen: 64, microBatch: 1, gpus: 1 };

describe('a backend started with --machine FILE plans for that file and runs nothing here', () => {
  it('plans say a loaded file; runs/start and tune/start are refused saying why and what to do', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-machine-file-'));
    const backend = createBackend({ dataDir, transport: 'server', machineFile: h200File });
    try {
      const plan = await backend.invoke('plan/compute', { workload });
      expect(plan.profile.machineSource).toBe('file');
      const spec = plan.strategies.find((s) => s.fits && s.spec.prediction)!.spec;
      expect(spec.prediction!.machineSource).toBe('file');
      const refusal =
        /^This session plans for h200-sxm-x86 \(1× NVIDIA H200\), loaded from a file with --machine, not the machine it runs on: (runs|tunes) start only from a plan for this machine\. Start the app or serve without --machine to run here/;
      await expect(backend.invoke('runs/start', { specs: [spec], steps: 1, warmup: 0 })).rejects.toMatchObject({
        code: 'planned_elsewhere',
        field: 'machine',
        message: expect.stringMatching(refusal),
      });
      await expect(backend.invoke('runs/start', { workload, strategies: ['zero3-offload'], steps: 1, warmup: 0 })).rejects.toMatchObject({
        code: 'planned_elsewhere',
      });
      await expect(backend.invoke('tune/start', { workload })).rejects.toMatchObject({
        code: 'planned_elsewhere',
        message: expect.stringMatching(/tunes start only from a plan for this machine/),
      });
      expect((await backend.invoke('runs/list', {})).runs).toHaveLength(0);
    } finally {
      await backend.close();
    }
  });
});
