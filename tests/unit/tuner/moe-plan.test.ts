// A Mixture-of-Experts model is planned with both of its counts: memory holds every expert (the total),
// time and TFLOPS count what a token computes (the active parameters); nothing measured on dense runs
// calibrates it, and the plan says so. The probe answer is the real one for Mixtral-8x7B's config.json
// (tests/fixtures/model-configs/mixtral-8x7b.json; tests/engine/test_model_configs.py holds the probe
// to transformers' own count and to the published 46.7B total / 12.9B active).
import { describe, expect, it } from 'vitest';
import { archFromProbe, type ModelProbeTable } from '../../../electron/services/environment';
import { countParams, memoryEvidence, parseWorkload, planWorkload } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from './h200-machine';

const probe: ModelProbeTable = {
  ok: true,
  transformers: '5.17.0',
  modelType: 'mixtral',
  architecture: 'MixtralForCausalLM',
  params: 46_702_792_704,
  layers: 32,
  perLayerParams: 1_451_270_144,
  perLayerParamsEach: null,
  embeddingParams: 131_072_000,
  largestLayer: { name: 'model.layers.0.mlp.experts', params: 1_409_286_144 },
  hiddenSize: 4096,
  numHeads: 32,
  numKvHeads: 8,
  headDim: 128,
  intermediateSize: 14336,
  vocabSize: 32000,
  tieEmbeddings: false,
  slidingWindow: null,
  positionLimit: null,
  moe: {
    experts: 8,
    expertsPerToken: 2,
    routedExpertParams: 45_097_156_608,
    activeParams: 12_879_925_248,
    blockClass: ['MixtralSparseMoeBlock'],
  },
};
const mixtral = archFromProbe({ model_type: 'mixtral', rope_theta: 1e6 }, 'mixtral-8x7b', probe);
// The same model as if every parameter were computed per token (what the tuner did before MoE was modelled).
const { active: _active, experts: _experts, ...denseProbed } = mixtral.probed!;
const denseTwin = { ...mixtral, probed: denseProbed };
const machine = h200Machine();
const measurements = h200Measurements();
const w = { model: mixtral, seqLen: 1024, microBatch: 1, gpus: 8, precision: 'bf16', activationCheckpointing: true } as const;

describe('Mixture-of-Experts plan', () => {
  it('counts the total for memory and the active parameters per token for time', () => {
    expect(countParams(mixtral)).toMatchObject({ total: 46_702_792_704, active: 12_879_925_248, experts: { count: 8, perToken: 2 } });
    const moe = planWorkload(w as never, { machine, measurements });
    const dense = planWorkload({ ...w, model: denseTwin } as never, { machine, measurements });
    const row = (p: typeof moe, id: string) => p.strategies.find((s) => s.id === id)!;
    for (const id of ['gpu-zero3', 'zero3-offload']) {
      expect(row(moe, id).memory.gpuBytes).toBe(row(dense, id).memory.gpuBytes);
      // Fewer FLOPs per token: a shorter step than the dense twin's.
      expect(row(moe, id).predicted.stepSeconds).toBeLessThan(row(dense, id).predicted.stepSeconds);
    }
    expect(moe.notes.join('\n')).toMatch(
      /Mixture-of-Experts: 8 experts per MoE layer, 2 per token\. Memory holds all 46\.70B parameters; time and TFLOPS count the 12\.88B a token computes\. Experts are not split over GPUs.*Uncalibrated/,
    );
  });

  it('takes no calibration measured on dense runs: its bands stay uncalibrated until MoE runs exist', () => {
    const memory = memoryEvidence([
      {
        runId: 'dense-z3',
        strategyId: 'gpu-zero3',
        workload: parseWorkload({ model: 'llama-3.1-8b', seqLen: 4096, microBatch: 2, gpus: 1 }),
        knobs: {},
        outcome: 'fits',
        peakGpuBytes: 134.46 * 2 ** 30,
        peakHostBytes: null,
      },
    ]);
    const calibration = { '*': { compute: 2, fetch: 2, comm: 2, transfer: 2, pageable: 1, hostCopy: 1, cpuAdam: 2, nvme: 1 } };
    const plain = planWorkload(w as never, { machine, measurements });
    const given = planWorkload(w as never, { machine, measurements, memory, calibration });
    expect(given.strategies.map((s) => [s.id, s.fit?.bandSource, s.predicted.stepSeconds])).toEqual(
      plain.strategies.map((s) => [s.id, s.fit?.bandSource, s.predicted.stepSeconds]),
    );
    expect(given.strategies.find((s) => s.id === 'gpu-zero3')?.fit?.bandSource).toBe('uncalibrated');
    // …while a dense model takes them (the factors above do change its step time).
    const dense = { ...w, model: denseTwin } as never;
    expect(planWorkload(dense, { machine, measurements, calibration }).strategies[0].predicted.stepSeconds).not.toBe(
      planWorkload(dense, { machine, measurements }).strategies[0].predicted.stepSeconds,
    );
  });
});
