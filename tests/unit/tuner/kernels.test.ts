// The tuner on the workload's own kernels (services/tuner/kernels.ts): a micro batch's compute is layers × the
// probed layer + the probed head, its activations and logits the probe's allocated bytes; the catalogue's
// constants where the probe's figures are absent or do not describe the workload, said in the notes with the
// reason. Every figure is a real kernel_probe.py output: tests/fixtures/kernel-probe/tiny-phi3.cpu-s64.json,
// CAPTURED ON A CPU (--device cpu, a Phi-3-shaped 2-layer config) — its seconds are a 2-core VM's, not a GPU's.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KernelProbeSchema, type KernelProbe, type Workload } from '../../../electron/contract';
import { archFromProbe, type ModelProbeAnswer } from '../../../electron/services/environment';
import {
  atMicro,
  buildProfile,
  computePlan,
  countParams,
  estimateMemory,
  kernelProbeMicros,
  kernelsForPlan,
  kernelsMismatch,
  normalizeMeasurements,
  parseWorkload,
  phaseTimes,
  planConfiguration,
  planWorkload,
  probedActivations,
  probedMicroSeconds,
  stepSecondsFrom,
  strategyById,
  withKernels,
} from '../../../electron/services/tuner';
import { activationBytes } from '../../../electron/services/tuner/model/memory';
import { microBatchSeconds } from '../../../electron/services/tuner/model/throughput';
import { h200Machine, h200Measurements } from './h200-machine';

const dir = path.resolve(import.meta.dirname, '../../fixtures/kernel-probe');
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as unknown;
const config = read('tiny-phi3.config.json') as Record<string, unknown>;
const cpuProbe: KernelProbe = KernelProbeSchema.parse(read('tiny-phi3.cpu-s64.json'));
const model = archFromProbe(config, 'tiny-phi3', read('tiny-phi3.model-probe.json') as ModelProbeAnswer);
const machine = h200Machine();
const measurements = h200Measurements();
const hw = buildProfile(machine, 'detected', normalizeMeasurements(measurements));
/** The CPU capture's own figures, said to come from this test machine's GPU: the plan-level path needs a GPU
 *  probe and none can be captured here. Only the device and the GPU's name are changed. */
const asThisGpu: KernelProbe = { ...cpuProbe, device: 'cuda', gpuName: 'NVIDIA H200' };
const workload = (over: Partial<Workload> = {}): Workload =>
  parseWorkload({ model, seqLen: 64, microBatch: 1, gpus: 1, precision: 'bf16', activationCheckpointing: true, ...over } as never);
const k = { probe: asThisGpu, layers: model.numLayers };
const at = (micro: number) => cpuProbe.micros.find((m) => m.microBatch === micro)!;

describe('the probe’s figures per micro batch', () => {
  it('are the probed values where probed, linear between, per sample past the largest', () => {
    expect(cpuProbe.micros.map((m) => m.microBatch)).toEqual([1, 2, 4]);
    const layer = (m: number) => atMicro(cpuProbe.micros, m, (p) => p.layerSeconds);
    expect(layer(2)).toBe(at(2).layerSeconds);
    expect(layer(3)).toBeCloseTo((at(2).layerSeconds + at(4).layerSeconds) / 2, 12);
    expect(layer(8)).toBeCloseTo(2 * at(4).layerSeconds, 12);
    // bytes are linear in the tokens: the probe's own micro 4 is twice its micro 2
    expect(at(4).layerPeakBytes).toBe(2 * at(2).layerPeakBytes);
  });

  it('give a micro batch’s compute as layers × the layer + the head', () => {
    expect(model.numLayers).toBe(2);
    expect(probedMicroSeconds(k, 2)).toBeCloseTo(2 * at(2).layerSeconds + at(2).headSeconds, 12);
    const p = withKernels(countParams(model), k);
    const w = workload({ microBatch: 2 });
    expect(microBatchSeconds(p, model, w, hw.matmulTflops)).toBe(probedMicroSeconds(k, 2));
    // the catalogue's figure for the same micro batch is another number (efficiencies, not the layer timed)
    expect(microBatchSeconds(countParams(model), model, w, hw.matmulTflops)).not.toBeCloseTo(probedMicroSeconds(k, 2), 3);
  });

  it('give the activations and logits from the allocated bytes, not the per-token formula', () => {
    const w = workload({ microBatch: 2 });
    const tokens = 2 * 64;
    const act = activationBytes(model, w, k);
    // checkpointing: every layer keeps its bf16 output (the probe measured exactly 2·h bytes a token) + embeddings
    expect(at(2).layerKeptBytes).toBe(2 * model.hiddenSize * tokens);
    expect(act.kept).toBe(2 * at(2).layerKeptBytes + 2 * model.hiddenSize * tokens);
    expect(act.recompute).toBe(at(2).layerPeakBytes - at(2).layerKeptBytes);
    expect(act.logits).toBe(at(2).headPeakBytes);
    expect(probedActivations(k, 2)).toEqual({ kept: 2 * at(2).layerKeptBytes, recompute: act.recompute, logits: act.logits });
    const formula = activationBytes(model, w);
    expect(formula.recompute).not.toBe(act.recompute);
    // estimateMemory reads them through the ParamCount
    const s = strategyById('gpu-zero3');
    const mem = estimateMemory(s, model, withKernels(countParams(model), k), w);
    expect(mem.gpuTerms.activations).toBe(act.kept);
    expect(estimateMemory(s, model, countParams(model), w).gpuTerms.activations).toBe(formula.kept);
  });

  it('replace the compute term only: the mechanism terms are as before, and no compute factor scales it', () => {
    const w = workload({ microBatch: 2, gradAccum: 3 });
    const x = { strategy: strategyById('zero3-offload'), model, workload: w, profile: hw, cpuadamCoresPerc: 0.9 };
    const probed = phaseTimes({ ...x, params: withKernels(countParams(model), k) });
    const catalogue = phaseTimes({ ...x, params: countParams(model) });
    expect(probed.compute - catalogue.compute).toBeCloseTo(
      3 * (probedMicroSeconds(k, 2) - microBatchSeconds(countParams(model), model, w, hw.matmulTflops)),
      9,
    );
    for (const key of ['fetch', 'transfer', 'pageable', 'hostCopy', 'cpuAdam', 'nvme'] as const) expect(probed[key]).toBe(catalogue[key]);
    expect(probed.computeMeasured).toBe(true);
    const f = { compute: 3, fetch: 2 };
    expect(stepSecondsFrom(probed, f).terms.compute).toBe(probed.compute);
    expect(stepSecondsFrom(probed, f).terms.fetchExposed).toBe(2 * probed.fetch);
    expect(stepSecondsFrom(catalogue, f).terms.compute).toBe(3 * catalogue.compute);
  });

  it('are asked for the search’s ladder up to where the fp32 logits alone would fill the GPU', () => {
    expect(kernelProbeMicros(model, { seqLen: 64, microBatch: 3 }, 80e9)).toEqual([1, 2, 3, 4, 8, 16, 32, 64]);
    // Phi-3-mini's vocabulary at seq 4096 on an 80 GB H100: 12 B × 32,064 × 4,096 × 64 = 101 GB is past it
    const phi3 = { ...model, vocabSize: 32064 };
    expect(kernelProbeMicros(phi3, { seqLen: 4096, microBatch: 1 }, 80e9)).toEqual([1, 2, 4, 8, 16, 32]);
  });
});

describe('a plan with and without the probe’s figures', () => {
  it('uses them where they describe the workload on this GPU, and says so', () => {
    const plan = planWorkload(workload(), { machine, measurements, kernels: { probe: asThisGpu } });
    expect(plan.kernels).toEqual({ source: 'probe', probe: asThisGpu });
    const note = plan.notes.find((n) => n.startsWith('Step compute and activation memory'))!;
    expect(note).toMatch(/this workload's own kernels, measured on this GPU \(NVIDIA H200\)/);
    expect(note).toMatch(
      /Phi3ForCausalLM: head_dim 16, 4 heads \/ 4 KV heads, fused q\/k\/v and gate\/up projections, vocabulary 256, sliding window 31/,
    );
    expect(note).toMatch(/mask tensor/);
    const catalogue = planWorkload(workload(), { machine, measurements });
    const row = plan.strategies.find((s) => s.id === 'gpu-zero3')!;
    const same = catalogue.strategies.find((s) => s.id === 'gpu-zero3')!;
    // the row is at the form's micro batch 1: its compute moved by exactly the probe's figure against the catalogue's
    const w = workload();
    expect(row.predicted.terms.computeRaw - same.predicted.terms.computeRaw).toBeCloseTo(
      probedMicroSeconds(k, 1) - microBatchSeconds(countParams(model), model, w, hw.matmulTflops),
      9,
    );
    expect(row.memory.gpuTerms.activations).toBe(activationBytes(model, w, k).kept);
    expect(row.spec.prediction?.stepSeconds).toBeGreaterThan(0);
  });

  it('rests on the catalogue’s constants, with the reason, where the probe failed, timed out or is absent', () => {
    const reason = 'the kernel probe timed out after 120 s (micro 1, 2, 4)';
    const timedOut = planWorkload(workload(), { machine, measurements, kernels: { reason } });
    expect(timedOut.kernels).toEqual({ source: 'catalogue', reason });
    expect(timedOut.notes).toContainEqual(
      expect.stringMatching(/^Step compute and activation memory: the catalogue's constants .* — the kernel probe timed out after 120 s/),
    );
    const none = planWorkload(workload(), { machine, measurements });
    expect(none.kernels).toEqual({ source: 'catalogue', reason: 'no kernel probe was run for this plan' });
    // the figures are the catalogue's either way
    expect(timedOut.strategies.map((s) => s.predicted.stepSeconds)).toEqual(none.strategies.map((s) => s.predicted.stepSeconds));
  });

  it('refuses figures of another device, GPU, sequence, precision, checkpointing or model, naming which', () => {
    const w = workload();
    expect(kernelsMismatch(cpuProbe, model, w, hw)).toBe("the probe ran on the cpu (the tests' switch), not on a GPU");
    expect(kernelsMismatch({ ...asThisGpu, gpuName: 'NVIDIA H100 80GB HBM3' }, model, w, hw)).toBe(
      'the probe timed NVIDIA H100 80GB HBM3, the plan is for NVIDIA H200',
    );
    expect(kernelsMismatch(asThisGpu, model, workload({ seqLen: 128 }), hw)).toBe(
      'the probe timed sequence length 64, the plan is for 128',
    );
    expect(kernelsMismatch(asThisGpu, model, workload({ precision: 'fp16' }), hw)).toBe('the probe timed bf16, the plan is for fp16');
    expect(kernelsMismatch(asThisGpu, model, workload({ activationCheckpointing: false }), hw)).toMatch(
      /with activation checkpointing, the plan is without/,
    );
    expect(kernelsMismatch(asThisGpu, { ...model, numLayers: 3 }, w, hw)).toMatch(/not the planned model/);
    expect(kernelsMismatch(asThisGpu, model, w, hw)).toBeNull();
    const plan = planWorkload(workload({ seqLen: 128 }), { machine, measurements, kernels: { probe: asThisGpu } });
    expect(plan.kernels).toEqual({ source: 'catalogue', reason: 'the probe timed sequence length 64, the plan is for 128' });
    // without a GPU nothing is predicted: no probe either
    expect(kernelsForPlan({ probe: asThisGpu }, model, w, { ...hw, gpuCount: 0 }).plan).toEqual({
      source: 'catalogue',
      reason: 'no GPU on this machine',
    });
  });

  it('a failed probe never fails the plan; a catalogued machine is never probed', async () => {
    const failing = await computePlan({
      workload: { model: model as never, seqLen: 64, microBatch: 1, gpus: 1 },
      machine,
      detect: () => Promise.resolve(machine),
      measurements,
      kernels: () => Promise.reject(new Error('spawn EACCES')),
    });
    expect(failing.kernels).toEqual({ source: 'catalogue', reason: 'the kernel probe failed (spawn EACCES)' });
    let asked = 0;
    const scenario = await computePlan({
      scenario: 'superoffload-llama-70b-4gpu',
      detect: () => Promise.resolve(machine),
      kernels: () => {
        asked++;
        return Promise.resolve({ reason: 'asked' });
      },
    });
    expect(asked).toBe(0);
    expect(scenario.kernels).toEqual({
      source: 'catalogue',
      reason: "the machine is the scenario's catalogued one: no GPU of it was probed",
    });
  });
});

// A real GPU capture: resources/samples/h100-kernel-probe/phi3-s4096.json, the probe on an H100 80GB HBM3
// (bench/device/kernel-probe.sh), for issue 46's unseen model — Phi-3-mini-4k at seq 4096, bf16, checkpointing —
// against that runs on an H100 (../shared/fixtures/h100-phi3-unseen: ZeRO-3 micro 6 ran 2.855 s/step at
// 71.6 GiB peak allocated; the plan, on the catalogue's constants, had said 2.047 s). The machine is that run's
// snapshot (tests/fixtures/kernel-probe/h100-phi3.machine.json); its host measurements are not in the runs file,
// so the host figures are catalogued — ZeRO-3 without offload barely reads them.
describe('Phi-3-mini on an H100: the probe’s figures against the measured run', () => {
  const samples = path.resolve(import.meta.dirname, '../../../resources/samples/h100-kernel-probe');
  const h100Probe = KernelProbeSchema.parse(JSON.parse(fs.readFileSync(path.join(samples, 'phi3-s4096.json'), 'utf8')));
  const phi3Config = read('phi-3-mini-4k.config.json') as Record<string, unknown>;
  const phi3 = archFromProbe(phi3Config, 'phi-3-mini-4k', read('phi-3-mini-4k.model-probe.json') as ModelProbeAnswer);
  const h100 = read('h100-phi3.machine.json') as typeof machine;
  const w6 = { model: phi3, seqLen: 4096, microBatch: 6, gpus: 1, precision: 'bf16', activationCheckpointing: true } as never;
  const measured = { stepSeconds: 2.854746331000001, peakGpuBytes: 76915744256 };
  const knobs = { overlapComm: false, reduceBucketSize: 4e8, subGroupSize: 4e8 };

  it('the probe saw the architecture the catalogue assumed away: head_dim 96, 32 KV heads, fused projections, a mask tensor', () => {
    expect(h100Probe).toMatchObject({ device: 'cuda', gpuName: 'NVIDIA H100 80GB HBM3', seqLen: 4096, checkpointing: true, oom: null });
    expect(h100Probe.arch).toMatchObject({ headDim: 96, numKvHeads: 32, fusedQkv: true, fusedGateUp: true, slidingWindow: 2047 });
    expect(h100Probe.arch.attentionMask).toMatch(/mask tensor \[1, 1, 4096, 4096\]/);
    expect(h100Probe.seconds).toBeLessThan(60);
  });

  it('ZeRO-3 micro 6: within 15% of the measured step (the catalogue’s constants were 30% short), memory within 8%', () => {
    const withProbe = planConfiguration(w6, { machine: h100, kernels: { probe: h100Probe } }, 'gpu-zero3', knobs);
    const catalogue = planConfiguration(w6, { machine: h100 }, 'gpu-zero3', knobs);
    const err = (p: number) => p / measured.stepSeconds - 1;
    expect(Math.abs(err(withProbe.predicted.stepSeconds))).toBeLessThan(0.15);
    expect(err(catalogue.predicted.stepSeconds)).toBeLessThan(-0.2);
    expect(Math.abs(withProbe.memory.gpuAllocatedBytes! / measured.peakGpuBytes - 1)).toBeLessThan(0.08);
  });
});
