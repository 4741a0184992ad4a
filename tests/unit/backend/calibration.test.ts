// Calibration from history for real: completed runs stored through the history store's own
// lifecycle, on the H200 fixture machine (served as a --machine file), change the plan's numbers
// toward what was measured and say so in the plan's notes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMachine, measurementFromFile, saveMeasurement } from '../../../electron/services/hardware';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { openHistory } from '../../../electron/services/history';
import { buildRunSpec, predict } from '../../../electron/services/tuner';
import { loadHost } from '../hardware/fixture-host';

const backends: Backend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

function setup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-calib-'));
  const machine = buildMachine(loadHost('h200-sxm-x86'));
  const machineFile = path.join(dataDir, 'machine.json');
  fs.writeFileSync(machineFile, JSON.stringify(machine));
  return { dataDir, machine, machineFile };
}

const workload = {
  model: 'llama-3.2-3b',
  seqLen: 2048,
  microBatch: 1,
  gradAccum: 1,
  gpus: 1,
  precision: 'bf16' as const,
  activationCheckpointing: true,
};

function storeRun(dataDir: string, machine: ReturnType<typeof buildMachine>, id: string, strategy: string, stepSeconds: number) {
  const history = openHistory(dataDir);
  const spec = { ...buildRunSpec(workload, strategy), runId: id, steps: 5, warmup: 1, seed: 1, maxSeconds: 600 };
  history.createRun({ id, sweepId: 'sw', repeatIndex: 0, model: workload.model, strategy, engine: 'deepspeed', steps: 5, warmup: 1, spec });
  history.startRun(id, { snapshot: machine, machineId: machine.machineId, spec });
  history.finishRun(id, {
    status: 'completed',
    result: { stepSeconds: { median: stepSeconds }, tflopsPerGpu: { median: 1 }, tokensPerSecond: { median: 1 } },
  });
  history.close();
}

describe('calibration from history', () => {
  it('leaves the plan uncalibrated without runs, then fits measured step times and says so', async () => {
    const { dataDir, machine, machineFile } = setup();
    const first = createBackend({ dataDir, transport: 'cli', machineFile });
    backends.push(first);
    const before = await first.invoke('plan/compute', { workload });
    expect(before.notes.some((n) => n.startsWith('Calibrated'))).toBe(false);
    const strategies = ['zero2-offload', 'zero3-offload'];
    for (const s of strategies) expect(before.strategies.find((p) => p.id === s)?.predicted.calibrated).toBe(false);
    await first.close();
    backends.pop();

    // The machine turned out twice as slow as the catalogued model says.
    for (const [i, s] of strategies.entries()) {
      const predicted = predict(workload, s, machine).stepSeconds;
      storeRun(dataDir, machine, `run-${i}`, s, predicted * 2);
    }
    const second = createBackend({ dataDir, transport: 'cli', machineFile });
    backends.push(second);
    const after = await second.invoke('plan/compute', { workload });
    const note = after.notes.find((n) => n.startsWith('Calibrated'));
    expect(note).toMatch(/from 2 completed run/);
    for (const s of strategies) {
      const b = before.strategies.find((p) => p.id === s)!.predicted.stepSeconds;
      const a = after.strategies.find((p) => p.id === s)!;
      expect(a.predicted.calibrated).toBe(true);
      // Pulled toward the measured 2× (not all the way: the fit keeps a prior toward 1).
      expect(a.predicted.stepSeconds).toBeGreaterThan(b * 1.3);
    }
  });

  it("calibrates a plan for an explicit machine from that machine's runs, never a scenario's catalogued one", async () => {
    // Calibration belongs to the machine (its machineId), in every transport.
    const { dataDir, machine, machineFile } = setup();
    for (const [i, s] of ['zero2-offload', 'zero3-offload'].entries()) storeRun(dataDir, machine, `r${i}`, s, 100);
    const backend = createBackend({ dataDir, transport: 'cli', machineFile });
    backends.push(backend);
    const withMachine = await backend.invoke('plan/compute', { workload, machine });
    expect(withMachine.notes.find((n) => n.startsWith('Calibrated'))).toMatch(/from 2 completed run.*r0/);
    // another kind of machine (twice the cores) borrows nothing
    const other = { ...machine, machineId: 'another-machine', cpu: { ...machine.cpu, physicalCores: 32, logicalCores: 32 } };
    const forOther = await backend.invoke('plan/compute', { workload, machine: other });
    expect(forOther.notes.some((n) => n.startsWith('Calibrated'))).toBe(false);
    // the same kind under a new machineId (a cloud instance started again: new hostname, new GPU UUIDs)
    // borrows the runs of its kind and names whose they are
    const twin = {
      ...machine,
      machineId: 'same-kind-new-id',
      hostname: 'elsewhere',
      memory: { ...machine.memory, totalBytes: machine.memory.totalBytes * 0.93 },
    };
    const forTwin = await backend.invoke('plan/compute', { workload, machine: twin });
    const note = forTwin.notes.find((n) => n.startsWith('Calibrated'));
    expect(note).toMatch(new RegExp(`machine\\(s\\) ${machine.machineId} of the same kind \\(`));
    expect(forTwin.strategies.find((p) => p.id === 'zero2-offload')?.predicted.calibrated).toBe(true);
    expect(forTwin.notes.some((n) => n.startsWith('Host figures: catalogued'))).toBe(true);
    // measurements stored for the original machine are borrowed by its twin too, named as such
    const native = JSON.parse(
      fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86/native-measure.json'), 'utf8'),
    );
    saveMeasurement(dataDir, measurementFromFile(native, machine.machineId, '2026-12-01T00:00:00Z'), true);
    const measuredTwin = await backend.invoke('plan/compute', { workload, machine: twin });
    expect(measuredTwin.notes.find((n) => n.startsWith('Host figures'))).toMatch(
      new RegExp(`measurements of machine ${machine.machineId}, of the same kind as this one .*none of same-kind-new-id itself`),
    );
    // the driver's triad by thread count survives the import (the copy rate a strategy's threads draw)
    expect(measurementFromFile(native, machine.machineId).memoryBandwidthByThreads?.map((p) => p.threads)).toEqual([8, 16]);
    // two measured machines of the kind: a later re-measure (another instance) supersedes, and the note says so
    const second = { ...twin, machineId: 'second-instance', hostname: 'vm2' };
    storeRun(dataDir, second, 'r-second', 'zero3-offload', 100);
    saveMeasurement(
      dataDir,
      measurementFromFile({ ...native, memoryBandwidth: { bytesPerSecond: 99e9 } }, 'second-instance', '2026-12-03T15:00:00Z'),
      false,
    );
    const third = { ...twin, machineId: 'third-instance', hostname: 'vm3' };
    const figures = (await backend.invoke('plan/compute', { workload, machine: third })).notes.find((n) => n.startsWith('Host figures'));
    expect(figures).toMatch(
      /measurements of machine second-instance, of the same kind as this one .* measured 3 Dec 2026, 15:00 UTC, the newest of 2 measured machines of its kind/,
    );
    // a twin with half the memory is another kind
    const small = { ...twin, machineId: 'same-cpu-less-memory', memory: { ...machine.memory, totalBytes: machine.memory.totalBytes / 2 } };
    expect((await backend.invoke('plan/compute', { workload, machine: small })).notes.some((n) => n.startsWith('Calibrated'))).toBe(false);
    const scenario = await backend.invoke('plan/compute', { scenario: 'superoffload-llama-70b-4gpu' });
    expect(scenario.notes.some((n) => n.startsWith('Calibrated'))).toBe(false);
  });

  it('refuses a --machine file that is not a detect --json, naming the field', () => {
    const { dataDir } = setup();
    const bad = path.join(dataDir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ schemaVersion: 1, cpu: {} }));
    expect(() => createBackend({ dataDir, transport: 'cli', machineFile: bad })).toThrow(/field '.+'/);
  });
});

describe('model paths over the wire', () => {
  it('the server and the app refuse a file path as the model; the CLI reads it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-guard-'));
    const server = createBackend({ dataDir, transport: 'server' });
    backends.push(server);
    const hf = path.resolve(import.meta.dirname, '../../fixtures/hf-configs');
    // (not the GPT-2 file: the CLI now reads the config before planning, and GPT-2 reads 1,024 tokens, fewer than the workload's)
    const file = path.join(hf, 'llama-3.1-8b.json');
    for (const model of [file, '../../etc/passwd', 'x.json'])
      await expect(server.invoke('plan/compute', { workload: { ...workload, model } })).rejects.toMatchObject({
        code: 'bad_request',
        field: 'workload.model',
      });
    await expect(
      server.invoke('runs/start', { workload: { ...workload, model: '/etc/passwd' }, strategies: ['zero3-offload'] }),
    ).rejects.toMatchObject({ field: 'workload.model' });
    await expect(
      server.invoke('plan/config', { workload: { ...workload, model: '/etc/passwd' }, strategyId: 'zero3-offload' }),
    ).rejects.toMatchObject({ field: 'workload.model' });
    // tune/start refuses it at once (before, the tune started and failed later in its plan/compute).
    await expect(server.invoke('tune/start', { workload: { ...workload, model: file } })).rejects.toMatchObject({
      code: 'bad_request',
      field: 'workload.model',
    });
    const cli = createBackend({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'os-guard-')), transport: 'cli' });
    backends.push(cli);
    const plan = await cli.invoke('plan/compute', { workload: { ...workload, model: file } });
    expect(plan.params).toBeGreaterThan(0);
  });
});
