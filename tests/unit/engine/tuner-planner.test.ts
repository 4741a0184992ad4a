// The orchestrator's planner (runs/start with a workload and strategy ids): what the Plan page would
// not offer on this machine is refused before anything runs, with what can run instead.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MachineSchema } from '../../../electron/contract';
import { createTunerPlanner } from '../../../electron/services/engine/tuner-planner';
import { parseWorkload } from '../../../electron/services/tuner';

const h200 = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../fixtures/hosts/h200-sxm-x86/machine.json'), 'utf8'));
// the same host without its GPU, as detect reports a VM without a driver
const noGpu = MachineSchema.parse({
  ...h200,
  gpus: [],
  gpuStatus: { driver: 'none', message: 'no NVIDIA driver found (nvidia-smi is not on PATH)' },
});
const workload = parseWorkload({ model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 });

describe('the planner of runs/start', () => {
  it('refuses a GPU-only strategy on a machine without a GPU, naming what can run', () => {
    const planner = createTunerPlanner();
    expect(() => planner.specs(workload, ['gpu-zero1'], noGpu)).toThrow(
      /ZeRO-1 \(no offload\) \(gpu-zero1\) cannot run on this machine: no GPU on this machine .* What can run here: zero2-offload, zero3-offload, zero3-offload-param/,
    );
  });
  it('plans a CPU-capable strategy there, and the GPU one on a GPU host', async () => {
    const planner = createTunerPlanner();
    expect((await planner.specs(workload, ['zero3-offload'], noGpu))[0].strategy).toBe('zero3-offload');
    expect((await planner.specs(workload, ['gpu-zero1'], MachineSchema.parse(h200)))[0].strategy).toBe('gpu-zero1');
  });
});
