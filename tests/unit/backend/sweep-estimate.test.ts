// A sweep's time estimate counts the step times this machine measured for the same configuration:
// before, only the engine's start-up was measured, so nine identical CPU runs later the Run step
// still said "about 2 min" (start-ups, no steps: a CPU run has no prediction) for a sweep that took
// five, and a GPU sweep counted the prediction where the configuration had already run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { buildMachine } from '../../../electron/services/hardware';
import { sweepEstimate } from '../../../renderer/src/pages/plan/estimate';
import { loadHost } from '../hardware/fixture-host';

const backends: Backend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

describe('step times measured here, per configuration', () => {
  it('plan/compute carries them for the configurations that ran on the machine kind, none before', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-steps-'));
    const machine = buildMachine(loadHost('h200-sxm-x86'));
    const backend = createBackend({ dataDir, transport: 'cli' });
    backends.push(backend);
    const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 8, gpus: 1 };
    expect((await backend.invoke('plan/compute', { workload, machine })).measuredSteps).toBeUndefined();
    await backend.invoke('samples/load', {});
    const plan = await backend.invoke('plan/compute', { workload, machine });
    const measured = plan.measuredSteps ?? {};
    const ran = plan.strategies.filter((s) => measured[s.spec.configHash]);
    expect(ran.length).toBeGreaterThan(0);
    // each the median of its runs' mean step (warm-up included, as wall time has it)
    const stored = (await backend.invoke('runs/list', { model: 'llama-3.2-3b', status: 'completed' })).runs;
    for (const s of ran) {
      const m = measured[s.spec.configHash];
      expect(m.runs).toBe(stored.filter((r) => r.configHash === s.spec.configHash).length);
      expect(m.seconds).toBeGreaterThan(0);
    }
    // The estimate counts them instead of the prediction, and says so.
    const specs = ran.map((s) => s.spec);
    const text = sweepEstimate(specs, 10, 3, 1, plan.engineStart, plan.measuredSteps);
    expect(text).toMatch(/step times of every strategy measured here over \d+ run\(s\)/);
    const minutes =
      (specs.length * (plan.engineStart!.seconds + specs.reduce((a, s) => a + 13 * measured[s.configHash].seconds, 0) / specs.length)) / 60;
    expect(text).toContain(`about ${Math.round(minutes)} min`);
  }, 120_000);
});

describe('sweepEstimate', () => {
  // A CPU smoke sweep on the 2-core VM, run once before: three strategies × three repeats, 14 s
  // start-up each, 10 + 3 steps of 1.8 s measured — 9 × 37.4 s, five to six minutes.
  const cpu = ['a', 'b', 'c'].map((k) => ({ configHash: `sha256:cpu-${k}`, prediction: null }));
  const measured = Object.fromEntries(cpu.map((s) => [s.configHash, { seconds: 1.8, runs: 3 }]));
  const start = { seconds: 14, runs: 9, sameModel: true };
  it('the same CPU sweep again: start-ups and the measured steps, not the start-ups alone', () => {
    const text = sweepEstimate(cpu, 10, 3, 3, start, measured);
    expect(text).toMatch(/^about 6 min \(step times of every strategy measured here over 9 run\(s\); start-up 14 s per run/);
    expect(text).not.toMatch(/not predicted/);
  });
  it('without a measured step, a CPU run still counts its start-up only, and says so', () => {
    expect(sweepEstimate(cpu, 10, 3, 3, start)).toMatch(
      /^about 2 min \(mostly starting the engine; CPU steps are not predicted here; start-up 14 s/,
    );
  });
  it('a measured step beats the prediction of the same configuration', () => {
    const gpu = { configHash: 'sha256:gpu', prediction: { stepSeconds: 1 } };
    expect(sweepEstimate([gpu], 100, 0, 1, start)).toMatch(/^about 2 min/); // 14 + 100 × 1 s
    expect(sweepEstimate([gpu], 100, 0, 1, start, { 'sha256:gpu': { seconds: 3, runs: 2 } })).toMatch(/^about 5 min/); // 14 + 100 × 3 s
  });
});
