// Measurements belong to a machine. Measuring this host (here: a 2-core CI VM's figures,
// stored as this host's latest, legacy and keyed) must not change a plan for the H200 machine file;
// the H200's own measurements, imported under its machineId, do — and the plan says which it used.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Measurement } from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { loadMeasurementFor, measurementFromFile, saveMeasurement } from '../../../electron/services/hardware';

const fixture = path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86');
const machineFile = path.join(fixture, 'machine.json');
const h200 = JSON.parse(fs.readFileSync(machineFile, 'utf8'));
const workload = { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1, searchMicroBatch: false };

const ciVm = (machineId: string | null): Measurement => ({
  cpuAdam: [
    { threads: 1, paramsPerSecond: 2e8 },
    { threads: 2, paramsPerSecond: 3e8 },
  ],
  recommendedCoresPerc: 0.5,
  recommendedThreads: 1,
  simdPath: 'avx2',
  logicalCores: 2,
  memoryBandwidthBytesPerSecond: 8e9,
  hostDevice: null,
  hostDeviceReason: 'no GPU',
  measuredAt: '2026-12-03T00:00:00.000Z',
  durationMs: 1000,
  machineId,
});

const backends: Backend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

async function planFor(dataDir: string) {
  const backend = createBackend({ dataDir, transport: 'cli' });
  backends.push(backend);
  return backend.invoke('plan/compute', { workload, machine: h200 });
}

describe('measurements keyed by machine', () => {
  it("this host's measurement leaves a machine file's plan alone; that machine's own measurement is used", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-meas-'));
    const before = await planFor(dataDir);
    expect(before.notes.find((n) => n.startsWith('Host figures'))).toMatch(/catalogued/);

    saveMeasurement(dataDir, ciVm(null)); // an old file: no machineId
    saveMeasurement(dataDir, ciVm('ci-vm-machine-id'));
    const afterCi = await planFor(dataDir);
    for (const s of before.strategies)
      expect(afterCi.strategies.find((x) => x.id === s.id)!.predicted.stepSeconds).toBe(s.predicted.stepSeconds);
    expect(afterCi.profile.sources.cpuAdam).not.toBe('measured');

    const imported = measurementFromFile(
      JSON.parse(fs.readFileSync(path.join(fixture, 'native-measure.json'), 'utf8')),
      h200.machineId,
      '2026-12-02T12:00:00.000Z',
    );
    saveMeasurement(dataDir, imported, true);
    expect(loadMeasurementFor(dataDir, h200.machineId)?.cpuAdam).toHaveLength(8);
    expect(loadMeasurementFor(dataDir, 'ci-vm-machine-id')?.logicalCores).toBe(2); // the host's latest is kept
    const own = await planFor(dataDir);
    expect(own.profile.sources.cpuAdam).toBe('measured');
    expect(own.profile.hostLinkPageableBytesPerSecond).toBeCloseTo(6.25e9, -8);
    expect(own.notes.find((n) => n.startsWith('Host figures'))).toMatch(/measurements of this machine \(705f57569eba7f15/);
  });
});

describe('the committed H200 sample calibrates a plan for its machine file', () => {
  it('per strategy, naming the runs and the error before → after', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-sample-'));
    const backend = createBackend({ dataDir, transport: 'cli' });
    backends.push(backend);
    await backend.invoke('samples/load', {});
    const imported = measurementFromFile(JSON.parse(fs.readFileSync(path.join(fixture, 'native-measure.json'), 'utf8')), h200.machineId);
    saveMeasurement(dataDir, imported, true);
    const plan = await backend.invoke('plan/compute', { workload, machine: h200 });
    const note = plan.notes.find((n) => n.startsWith('Calibrated'))!;
    // every bundled sample dataset of that machine (10 runs at micro 4, and the tuned sweep), and the
    // cores sweep measured on another instance of the same kind (its own machineId), named as such
    expect(note).toMatch(
      /Calibrated from (2\d|[3-9]\d) completed run\(s\) on machine 705f57569eba7f15 \(\d+\) and machine\(s\) [0-9a-f, ]*5c8ec6a638dd062a[0-9a-f, ]* of the same kind \(.*H200; \d+\): step-time error \d+% → \d+% RMS/,
    );
    expect(note).toMatch(/superoffload \d+ \(/);
    const by = Object.fromEntries(plan.strategies.map((s) => [s.id, s]));
    expect(by['superoffload'].predicted.calibrated).toBe(true);
    // measured median of the sample's ZeRO-2 runs (micro 4): the calibrated plan is within 15%
    // (offload rows carry the searched knobs — ratio, overlap — which the sample did not run)
    expect(by['gpu-zero2'].predicted.stepSeconds / 0.588).toBeGreaterThan(0.85);
    expect(by['gpu-zero2'].predicted.stepSeconds / 0.588).toBeLessThan(1.15);
  });
});
