// FSDP2 offload steps with torch's AdamW on the CPU, not DeepSpeedCPUAdam: where the host measured torch's
// own rate (measure's torchAdam phase) the time model steps at that rate; elsewhere at the H200 host's ratio
// to the CPU Adam sweep, and the profile says which.
import { describe, expect, it } from 'vitest';
import { buildProfile, catalog, normalizeMeasurements, parseWorkload } from '../../../electron/services/tuner';
import { fsdp2Offload, torchAdamRateFactor } from '../../../electron/services/tuner/mechanisms/fsdp2';
import type { JsonObject } from '../../../electron/services/tuner/mechanisms/types';
import { cpuAdamRate } from '../../../electron/services/tuner/catalogue/profile';
import { THROUGHPUT_CONSTANTS, type TorchAdamImpl } from '../../../electron/services/tuner/model/throughput-constants';
import { phaseTimes } from '../../../electron/services/tuner/model/throughput';
import { countParams } from '../../../electron/services/tuner/model/params';
import { resolveModel } from '../../../electron/services/tuner/catalogue/models';
import { h200Machine, h200Measurements } from './h200-machine';

const fsdp = catalog().strategies.find((s) => s.engine === 'fsdp2')!;
const model = resolveModel('llama-3.2-3b');
const params = countParams(model);
const workload = parseWorkload({ model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1 });
const torchAdam = {
  threads: 16,
  params: 33554432,
  paramsPerSecond: { plain: 0.5e9, foreach: 0.9e9, fused: 3.6e9 },
  torch: '2.11.0',
  python: '/venv/bin/python',
};

/** The FSDP2 step's CPU Adam seconds for this workload on `profile`, with one torch AdamW implementation. */
const cpuAdamSeconds = (profile: ReturnType<typeof buildProfile>, impl: TorchAdamImpl) =>
  phaseTimes({ strategy: fsdp, model, params, workload, profile, cpuadamCoresPerc: 0.5, knobs: { torchAdamImpl: impl } }).cpuAdam;

describe("torch's CPU AdamW rate (FSDP2 offload)", () => {
  it('without a measurement: the H200 host ratio, said so in the profile', () => {
    const hw = buildProfile(h200Machine(), 'detected', normalizeMeasurements(h200Measurements()));
    expect(hw.torchAdam).toBeUndefined();
    expect(hw.sources.torchAdam).toMatch(/^default \(the H200 host's ratio/);
    expect(torchAdamRateFactor(hw, 'fused')).toBe(THROUGHPUT_CONSTANTS.torchFusedAdamFactor);
    expect(torchAdamRateFactor(hw, 'plain')).toBe(THROUGHPUT_CONSTANTS.torchPlainAdamFactor);
    // no foreach rate was measured on that host: the loop's ratio, a floor
    expect(torchAdamRateFactor(hw, 'foreach')).toBe(THROUGHPUT_CONSTANTS.torchPlainAdamFactor);
  });

  it("measured: the step runs at this host's rate of the implementation the run uses", () => {
    const measured = normalizeMeasurements({ ...(h200Measurements() as object), torchAdam });
    expect(measured?.torchAdam).toEqual({ threads: 16, plain: 0.5e9, foreach: 0.9e9, fused: 3.6e9 });
    const hw = buildProfile(h200Machine(), 'detected', measured);
    expect(hw.sources.torchAdam).toBe('measured');
    expect(torchAdamRateFactor(hw, 'fused') * cpuAdamRate(hw, 16)).toBeCloseTo(3.6e9, -3);
    // 16 physical cores: the threads the model steps with are the threads it was measured at
    for (const [impl, rate] of [
      ['fused', 3.6e9],
      ['foreach', 0.9e9],
      ['plain', 0.5e9],
    ] as const)
      expect(cpuAdamSeconds(hw, impl)).toBeCloseTo(params.total / rate, 6);
    // and the answer moves with the measurement: a host whose loop is twice as fast steps the loop in half the time
    const faster = buildProfile(
      h200Machine(),
      'detected',
      normalizeMeasurements({ ...(h200Measurements() as object), torchAdam: { ...torchAdam, paramsPerSecond: { plain: 1e9 } } }),
    );
    expect(cpuAdamSeconds(faster, 'plain')).toBeCloseTo(cpuAdamSeconds(hw, 'plain') / 2, 6);
    // an implementation it did not measure falls back to the ratio, not to another implementation's rate
    expect(torchAdamRateFactor(faster, 'fused')).toBe(THROUGHPUT_CONSTANTS.torchFusedAdamFactor);
  });

  it('reads the implementation a run stepped with from its config: the runner names it, older configs give the flags', () => {
    const read = (optimizer: Record<string, unknown>) =>
      fsdp2Offload.readKnobs({
        config: { optimizer } as JsonObject,
        zero: null,
        offloadOptimizer: null,
        offloadParam: null,
        fsdp: { cpuOffload: true, reshardAfterForward: true },
      }).torchAdamImpl;
    // the app's runner where torch has no fused CPU AdamW: it says foreach, and fused is false
    expect(read({ type: 'AdamW', implementation: 'foreach', fused: false, device: 'cpu' })).toBe('foreach');
    expect(read({ type: 'AdamW', implementation: 'fused', fused: true, device: 'cpu' })).toBe('fused');
    // the first dataset's driver configs: fused false and nothing else, torch's per-tensor loop on CPU tensors
    expect(read({ type: 'AdamW', lr: 1e-5, fused: false })).toBe('plain');
    expect(read({ type: 'AdamW', fused: false, foreach: true })).toBe('foreach');
    expect(read({ type: 'AdamW' })).toBeUndefined();
  });
});
