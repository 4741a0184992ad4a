// DeepSpeed's model-state estimators vs figures computed by hand from the formulas in
// stage_1_and_2.py / stage3.py (and confirmed with the installed DeepSpeed 0.19.8).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  catalog,
  countParams,
  estimateMemory,
  estimateZero2,
  estimateZero3,
  modelStatesFor,
  parseWorkload,
  resolveModel,
} from '../../../electron/services/tuner';

const P8 = 8_030_261_248;
const L8 = 525_336_576;
const P70 = 70_553_706_496;
const L70 = 1_050_673_152;

describe('DeepSpeed estimators', () => {
  it('ZeRO-2 with CPU offload, 1 GPU: GPU 2P, CPU P·max(4G,16)·1.5', () => {
    expect(estimateZero2(P8, 1, 1, true)).toEqual({ cpuBytes: 192_726_269_952, gpuBytes: 16_060_522_496 });
  });
  it('ZeRO-2 without offload, 8 GPUs: GPU 2P + 18P/G, CPU 4P·gpn·1.5', () => {
    expect(estimateZero2(P8, 8, 1, false)).toEqual({ cpuBytes: 385_452_539_904, gpuBytes: 34_128_610_304 });
  });
  it('ZeRO-3 optimizer offload, 4 GPUs: GPU 4ℓ + 2P/G, CPU 16P·1.5', () => {
    expect(estimateZero3(P70, L70, 4, 1, true, false)).toEqual({
      cpuBytes: 1_693_288_955_904,
      gpuBytes: 39_479_545_856,
      largestLayerBytes: 4_202_692_608,
    });
  });
  it('ZeRO-3 optimizer + param offload: GPU 4ℓ, CPU 18P·1.5', () => {
    expect(estimateZero3(P70, L70, 4, 1, true, true)).toMatchObject({ cpuBytes: 1_904_950_075_392, gpuBytes: 4_202_692_608 });
  });
  it('ZeRO-3 without offload, 2 nodes × 8 GPUs: GPU 4ℓ + 18P/G, CPU 4ℓ·gpn·1.5', () => {
    expect(estimateZero3(P70, L70, 8, 2, false, false)).toMatchObject({ cpuBytes: 50_432_311_296, gpuBytes: 83_575_612_416 });
  });
  it('the plan reports exactly the estimator figure as modelStates for each strategy', () => {
    const w = parseWorkload({ model: 'llama-3.1-8b', seqLen: 2048, microBatch: 1, gpus: 1 });
    const p = countParams(resolveModel('llama-3.1-8b'));
    const byId = Object.fromEntries(catalog().strategies.map((s) => [s.id, modelStatesFor(s, p, w)]));
    expect(byId['zero2-offload']).toMatchObject({ gpuBytes: 16_060_522_496, hostBytes: 192_726_269_952 });
    expect(byId['gpu-zero2'].gpuBytes).toBe(2 * P8 + 18 * P8);
    expect(byId['zero3-offload']).toMatchObject({ gpuBytes: 4 * L8 + 2 * P8, hostBytes: P8 * 16 * 1.5 });
    expect(byId['zero3-offload-param']).toMatchObject({ gpuBytes: 4 * L8, hostBytes: P8 * 18 * 1.5 });
    expect(byId['superoffload'].estimator).toContain('cpu_offload=True, cpu_offload_params=False');
  });
  it('checkpointing shrinks activations; totals are the sum of the named terms', () => {
    const s = catalog().strategies.find((x) => x.id === 'zero3-offload')!;
    const m = resolveModel('llama-3.1-8b');
    const p = countParams(m);
    const on = estimateMemory(s, m, p, parseWorkload({ model: m.id, seqLen: 4096, microBatch: 1, gpus: 1 }));
    const off = estimateMemory(
      s,
      m,
      p,
      parseWorkload({ model: m.id, seqLen: 4096, microBatch: 1, gpus: 1, activationCheckpointing: false }),
    );
    expect(off.gpuTerms.activations).toBeGreaterThan(5 * on.gpuTerms.activations);
    const sum = (t: Record<string, number>) => Object.values(t).reduce((a, b) => a + b, 0);
    expect(on.gpuBytes).toBe(Math.round(sum(on.gpuTerms)));
    expect(on.hostBytes).toBe(Math.round(sum(on.hostTerms)));
    // llama-3.1-8b, seq 4096, micro 1, no checkpointing: 32 layers × 4096 tokens × 2·(2h+2q+2kv + 2h+4I) bytes
    expect(off.gpuTerms.activations - 2 * 4096 * 4096).toBe(32 * 4096 * 2 * (2 * 4096 + 2 * 4096 + 2 * 1024 + 2 * 4096 + 4 * 14336));
  });
  it('ZeRO-3 without offload holds the host copy DeepSpeed makes of each partition at init (defragment), and the H200 runs stay under it', () => {
    // The 8B and 1B ZeRO-3 runs of the H200 boundary sample peaked at 16.1 / 3.5 GiB of host RSS; before
    // the term the model said 2 GiB (87.6% under). Nothing was fitted to them: 2 B/param is the copy's size.
    const s = catalog().strategies.find((x) => x.id === 'gpu-zero3')!;
    const runs = (
      JSON.parse(readFileSync('resources/samples/h200-boundary.runs.json', 'utf8')) as {
        runs: {
          run: { status: string; peak_host_bytes: number | null };
          details: { spec: { strategy: string; microBatch: number; seqLen: number; model: { id: string } } };
        }[];
      }
    ).runs.filter((r) => r.run.status === 'completed' && r.details.spec.strategy === 'gpu-zero3');
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const r of runs) {
      const m = resolveModel(r.details.spec.model.id);
      const e = estimateMemory(
        s,
        m,
        countParams(m),
        parseWorkload({ model: m.id, seqLen: r.details.spec.seqLen, microBatch: r.details.spec.microBatch, gpus: 1 }),
      );
      expect(e.hostTerms.defragmentHostCopy).toBe(Math.round(2 * countParams(m).total));
      const measured = r.run.peak_host_bytes!;
      expect(e.hostBytes).toBeGreaterThanOrEqual(measured);
      expect(e.hostBytes).toBeLessThanOrEqual(measured * 1.25);
    }
    const z2 = estimateMemory(
      catalog().strategies.find((x) => x.id === 'gpu-zero2')!,
      resolveModel('llama-3.1-8b'),
      { ...countParams(resolveModel('llama-3.1-8b')) },
      parseWorkload({ model: 'llama-3.1-8b', seqLen: 4096, microBatch: 1, gpus: 1 }),
    );
    expect(z2.hostTerms.defragmentHostCopy).toBeUndefined();
  });
  it("SuperOffload's host: ZeRO-3 offload's plus the fp32 partition its worker maps, within 10% of every stored run", () => {
    // Runner host figure = self + children RSS; the worker's shared fp32 partition counts in both. The previous
    // constants (5.6 B per CPU-share parameter + 2 GiB for the worker) put these runs 4–27% over.
    const s = catalog().strategies.find((x) => x.id === 'superoffload')!;
    type StoredRun = {
      run: { status: string; peak_host_bytes: number | null };
      details: {
        spec?: {
          strategy: string;
          microBatch: number;
          seqLen: number;
          model: { id: string };
          knobs: Record<string, number | boolean>;
        };
      };
    };
    const runs = readdirSync('resources/samples')
      .filter((f) => f.endsWith('.runs.json'))
      .flatMap((f) => (JSON.parse(readFileSync(`resources/samples/${f}`, 'utf8')) as { runs: StoredRun[] }).runs)
      .filter((r) => r.run.status === 'completed' && r.details.spec?.strategy === 'superoffload' && r.run.peak_host_bytes);
    expect(runs.length).toBeGreaterThanOrEqual(15);
    for (const r of runs) {
      const spec = r.details.spec!;
      const m = resolveModel(spec.model.id);
      const e = estimateMemory(
        s,
        m,
        countParams(m),
        parseWorkload({ model: m.id, seqLen: spec.seqLen, microBatch: spec.microBatch, gpus: 1 }),
        false,
        spec.knobs,
      );
      const error = e.hostBytes / r.run.peak_host_bytes! - 1;
      expect(Math.abs(error), `${spec.model.id} seq ${spec.seqLen} ratio ${spec.knobs.ratio}`).toBeLessThan(0.1);
    }
  });
});
