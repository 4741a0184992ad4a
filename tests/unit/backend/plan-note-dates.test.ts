// The plan's "Host figures" note says when the host was measured the way every page says a date
// (contract formatDateTime: "3 Dec 2026, 15:00 UTC"), not as a raw ISO timestamp — for this
// machine's own measurements and for those borrowed from a machine of its kind. Real measurement
// files in a real data folder, a real plan through the backend.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { measurementsFor } from '../../../electron/services/backend/handlers/calibration';
import { buildMachine, measurementFromFile, saveMeasurement } from '../../../electron/services/hardware';
import { openHistory } from '../../../electron/services/history';
import { buildRunSpec } from '../../../electron/services/tuner';
import { loadHost } from '../hardware/fixture-host';

const backends: Backend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

const native = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86/native-measure.json'), 'utf8'),
);
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const workload = {
  model: 'llama-3.2-3b',
  seqLen: 2048,
  microBatch: 1,
  gradAccum: 1,
  gpus: 1,
  precision: 'bf16' as const,
  activationCheckpointing: true,
};

describe("the plan note's measurement date", () => {
  it("this machine's own measurements: the date as the app prints it", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-note-date-'));
    const machine = buildMachine(loadHost('h200-sxm-x86'));
    saveMeasurement(dataDir, measurementFromFile(native, machine.machineId, '2026-12-03T15:00:00Z'), false);
    const { note } = measurementsFor(dataDir, machine, false);
    expect(note).toBe(`Host figures: measurements of this machine (${machine.machineId}, measured 3 Dec 2026, 15:00 UTC).`);
  });

  it('a plan for a twin that borrows them says the date the same way', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-note-date-'));
    const machine = buildMachine(loadHost('h200-sxm-x86'));
    const machineFile = path.join(dataDir, 'machine.json');
    fs.writeFileSync(machineFile, JSON.stringify(machine));
    saveMeasurement(dataDir, measurementFromFile(native, machine.machineId, '2026-12-01T08:05:00Z'), false);
    // A run of the measured machine in history: it makes that machine known as the twin's kind.
    const history = openHistory(dataDir);
    const spec = { ...buildRunSpec(workload, 'zero2-offload'), runId: 'r-1', steps: 5, warmup: 1, seed: 1, maxSeconds: 600 };
    history.createRun({
      id: 'r-1',
      sweepId: 'sw',
      repeatIndex: 0,
      model: workload.model,
      strategy: 'zero2-offload',
      engine: 'deepspeed',
      steps: 5,
      warmup: 1,
      spec,
    });
    history.startRun('r-1', { snapshot: machine, machineId: machine.machineId, spec });
    history.finishRun('r-1', {
      status: 'completed',
      result: { stepSeconds: { median: 1 }, tflopsPerGpu: { median: 1 }, tokensPerSecond: { median: 1 } },
    });
    history.close();
    const backend = createBackend({ dataDir, transport: 'cli', machineFile });
    backends.push(backend);
    const twin = { ...machine, machineId: 'same-kind-other-id', hostname: 'vm2' };
    const plan = await backend.invoke('plan/compute', { workload, machine: twin });
    const note = plan.notes.find((n) => n.startsWith('Host figures'))!;
    expect(note).toContain(`measurements of machine ${machine.machineId}, of the same kind as this one`);
    expect(note).toContain('measured 1 Dec 2026, 08:05 UTC');
    expect(note).not.toMatch(ISO);
  });
});
