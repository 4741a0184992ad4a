// The tuner cut by mechanism: every catalogue strategy runs through exactly one mechanism
// module, and what a mechanism writes into a config it reads back — the config a user's training takes
// and the knobs a stored run is calibrated with are one description, not two that can drift.
import { describe, expect, it } from 'vitest';
import { MECHANISMS, configParts, knobsOfConfig, mechanismOf, strategyOfConfig } from '../../../electron/services/tuner/mechanisms';
import { buildProfile, catalog, generateConfig, normalizeMeasurements, parseWorkload } from '../../../electron/services/tuner';
import { phaseTimes } from '../../../electron/services/tuner/model/throughput';
import { countParams } from '../../../electron/services/tuner/model/params';
import { resolveModel } from '../../../electron/services/tuner/catalogue/models';
import { h200Machine, h200Measurements } from './h200-machine';

const strategies = catalog().strategies;
const w = parseWorkload({ model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1 });

/** Knobs away from every default, as far as the strategy has them. */
function unusualKnobs(s: (typeof strategies)[number]) {
  const id = s.id;
  const knobs: Record<string, unknown> = { overlapComm: false, reduceBucketSize: 123_456_789 };
  if (s.offloadOptimizer !== 'none') knobs.pinMemory = false; // pin_memory lives in the offload block
  if (id.startsWith('gpu-zero3') || id.startsWith('zero3') || id === 'superoffload' || id === 'zero-infinity-nvme')
    knobs.subGroupSize = 2e8;
  if (id === 'zero3-offload' || id === 'superoffload') knobs.ratio = 0.45;
  if (id === 'superoffload') knobs.cpuadamCoresPerc = 0.625;
  if (id.startsWith('fsdp2')) return { reshardAfterForward: false };
  return knobs;
}

describe('the tuner cut by mechanism: one mechanism per strategy, configs read back', () => {
  it('every catalogue strategy is covered by exactly one mechanism', () => {
    for (const s of strategies) {
      const covering = MECHANISMS.filter((m) => m.covers(s)).map((m) => m.id);
      expect(covering, s.id).toHaveLength(1);
    }
    // and every mechanism covers some catalogue strategy: none is dead code
    for (const m of MECHANISMS)
      expect(
        strategies.some((s) => m.covers(s)),
        m.id,
      ).toBe(true);
  });

  it('a generated config is read back by the same mechanism into the knobs it was written from', () => {
    for (const s of strategies) {
      const knobs = unusualKnobs(s);
      const config = generateConfig(s, w, knobs);
      const parts = s.engine === 'fsdp2' ? configParts({}, config) : configParts(config);
      expect(strategyOfConfig(parts).strategy?.id, s.id).toBe(s.id);
      expect(strategyOfConfig(parts).mechanism?.id, s.id).toBe(mechanismOf(s).id);
      const read = s.engine === 'fsdp2' ? knobsOfConfig({}, config) : knobsOfConfig(config);
      expect(read, s.id).toMatchObject(knobs);
    }
  });

  it('a mechanism without a CPU optimizer adds no host traffic or CPU step; one with it does', () => {
    const m = resolveModel('llama-3.2-3b');
    const p = countParams(m);
    // the H200 host's detected machine and measurements (tests/fixtures/hosts/h200-sxm-x86)
    const hw = buildProfile(h200Machine(), 'detected', normalizeMeasurements(h200Measurements()));
    for (const s of strategies) {
      const t = phaseTimes({ strategy: s, model: m, params: p, workload: w, profile: hw, cpuadamCoresPerc: 0.5 });
      const offloaded = s.offloadOptimizer !== 'none';
      expect(t.cpuAdam > 0, s.id).toBe(offloaded);
      expect(t.transfer + t.pageable > 0, s.id).toBe(offloaded);
      expect(t.fetch > 0, s.id).toBe(s.stage === 3);
    }
  });

  it("what a strategy can do without a GPU and what the plan warns of are the mechanism's, not branches on strategy fields", () => {
    const hw = buildProfile(h200Machine(), 'detected', normalizeMeasurements(h200Measurements()));
    const byId = (id: string) => mechanismOf(strategies.find((s) => s.id === id)!);
    // DeepSpeed's CPU accelerator: ZeRO with CPU offload smoke-runs, without offload only when forced;
    // SuperOffload asserts CUDA, NVMe needs a drive, FSDP2's offload policy is for a GPU's states.
    expect(
      ['zero2-offload', 'zero3-offload', 'zero3-offload-param', 'gpu-zero1', 'superoffload', 'zero-infinity-nvme', 'fsdp2-cpu-offload'].map(
        (id) => byId(id).withoutGpu,
      ),
    ).toEqual(['smoke', 'smoke', 'smoke', 'forced', 'never', 'never', 'never']);
    for (const s of strategies) {
      const m = mechanismOf(s);
      const warnings = m.planWarnings?.(s, w, hw) ?? [];
      if (m.id === 'superoffload') {
        expect(m.hasCoresKnob).toBe(true);
        expect(warnings.join(' ')).toMatch(/gradient_clipping/);
        expect(warnings.join(' ')).toMatch(/superchips/); // an H200 on PCIe is no superchip
        expect((m.planWarnings?.(s, w, { ...hw, gpuName: 'NVIDIA GH200 480GB' }) ?? []).join(' ')).not.toMatch(/superchips/);
      } else {
        expect(m.hasCoresKnob).toBe(false);
        expect(warnings).toEqual([]);
      }
    }
  });
});
