// The orchestrator's planner (runs/start with a workload and strategy ids): what the Plan page would
// not offer on this machine is refused before anything runs, with what can run instead.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MachineSchema } from '../../../electron/contract';
import { createTunerPlanner } from '../../../electron/services/backend/tuner-planner';
import { parseWorkload, planUserConfig } from '../../../electron/services/tuner';

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

describe('a spec given as it is (run --ds-config) meets the same rule (issue 47 item 4)', () => {
  const guide = fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/deepspeed-guide-superoffload.json'), 'utf8');
  const userSpec = (text: string) =>
    planUserConfig(
      { config: { fileName: 'super.json', text }, workload: { model: 'tiny-llama', seqLen: 32 } },
      { machine: noGpu, machineSource: 'detected' },
    ).spec;
  it('SuperOffload from a ds_config is refused without a GPU, in the words run --strategy superoffload gets', () => {
    const planner = createTunerPlanner();
    let byId = '';
    try {
      planner.specs(parseWorkload({ model: 'tiny-llama', seqLen: 32, microBatch: 4, gpus: 1 }), ['superoffload'], noGpu);
    } catch (e) {
      byId = (e as Error).message;
    }
    expect(byId).toMatch(/^SuperOffload .*\(superoffload\) cannot run on this machine: no GPU/);
    expect(() => planner.refuseSpecs!([userSpec(guide)], noGpu)).toThrow(`super.json: ${byId}`);
    // also where the config maps to no strategy (fp32) but turns super_offload on
    const fp32 = JSON.parse(guide) as Record<string, unknown>;
    delete fp32.bf16;
    const custom = userSpec(JSON.stringify(fp32));
    expect(custom.strategy).toBe('custom');
    expect(() => planner.refuseSpecs!([custom], noGpu)).toThrow(/cannot run on this machine: no GPU/);
  });
  it('what the CPU accelerator runs still runs from a ds_config; SuperOffload runs where there is a GPU', () => {
    const planner = createTunerPlanner();
    const zeroOffload = fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/dsexamples-zero-offload.json'), 'utf8');
    expect(() => planner.refuseSpecs!([userSpec(zeroOffload)], noGpu)).not.toThrow();
    expect(() => planner.refuseSpecs!([userSpec(guide)], MachineSchema.parse(h200))).not.toThrow();
  });
  it("a custom spec runs as the registry's strategyOfConfig says: NVMe for both is refused without a GPU, NVMe for one device only is no strategy", () => {
    const planner = createTunerPlanner();
    const nvme = fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/zero-infinity-nvme.json'), 'utf8');
    const spec = { ...userSpec(nvme), strategy: 'custom' };
    const zero = spec.dsConfig!.zero_optimization as Record<string, Record<string, unknown>>;
    expect([zero.offload_optimizer.device, zero.offload_param.device]).toEqual(['nvme', 'nvme']);
    expect(() => planner.refuseSpecs!([spec], noGpu)).toThrow(/\(zero-infinity-nvme\) cannot run on this machine: no GPU/);
    const oneDevice = {
      ...spec,
      dsConfig: { ...spec.dsConfig, zero_optimization: { ...zero, offload_param: { ...zero.offload_param, device: 'cpu' } } },
    };
    expect(() => planner.refuseSpecs!([oneDevice], noGpu)).not.toThrow();
  });
});
