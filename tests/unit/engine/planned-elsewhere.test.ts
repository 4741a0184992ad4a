// A plan for another machine ran here. A spec's prediction carries the machine it was
// made for (plan/compute stamps it); runs/start refuses a spec planned for a loaded or catalogued
// machine, and runs one planned on another detected host without that prediction — its hostPeakBytes
// is the figure the runner's pre-flight (resources/engine/preflight.py) would take as this host's —
// saying so in the run's log.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRequest, type RunLogEvent, type RunSpec } from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { predictionElsewhere, startSweep, type SweepDeps } from '../../../electron/services/engine';
import { buildMachine } from '../../../electron/services/hardware';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { loadHost } from '../hardware/fixture-host';
import { FAKE_MACHINE, fakeLaunch, fixedPlanner, tinySpec, tmpDir } from './helpers';

const stores: HistoryStore[] = [];
const backends: Backend[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  for (const b of backends.splice(0)) await b.close();
});

const H200_LABEL = 'h200-sxm-x86 · 1 × NVIDIA H200';
/** The tiny spec with its prediction (hostPeakBytes 1e9) stamped as made for `machine`. */
function specFor(machine: { machineId: string | null; machineSource: 'detected' | 'file' | 'catalogued'; machineLabel?: string }): RunSpec {
  const spec = tinySpec('zero3-offload');
  return { ...spec, prediction: { ...spec.prediction!, machineLabel: H200_LABEL, ...machine } };
}

function setup() {
  const dataDir = tmpDir();
  const history = openHistory(dataDir);
  stores.push(history);
  const logs: RunLogEvent[] = [];
  const deps: SweepDeps = {
    history,
    dataDir,
    planner: fixedPlanner,
    events: { progress: () => undefined, status: () => undefined, log: (e) => logs.push(e) },
    machine: async () => FAKE_MACHINE, // machineId 'm-test'
    launch: (specFile) => fakeLaunch(specFile, 'ok'),
    graceMs: 500,
  };
  return { dataDir, history, deps, logs };
}

const start = (specs: RunSpec[]) => parseRequest('runs/start', { specs, steps: 2, warmup: 1 });

describe('a spec planned for another machine', () => {
  it('planned on another detected host: runs without that prediction (the runner gets no host figure), and the log says so', async () => {
    const { dataDir, history, deps, logs } = setup();
    const sweep = await startSweep(start([specFor({ machineId: 'm-gpu-box', machineSource: 'detected' })]), deps);
    const [end] = await sweep.done;
    expect(end.status).toBe('completed');
    // What the runner was given: no prediction, so bench.py/preflight.py size the run with their own estimate.
    const given = JSON.parse(fs.readFileSync(path.join(dataDir, 'specs', `${sweep.runIds[0]}.json`), 'utf8')) as RunSpec;
    expect(given.prediction).toBeNull();
    const detail = history.getRun(sweep.runIds[0])!;
    expect(detail.predicted).toBeNull(); // nor stored beside this host's measurement (calibration would fit to it)
    const said = `the plan's prediction for zero3-offload was made for ${H200_LABEL} (machine m-gpu-box), not this host (machine m-test)`;
    expect(fs.readFileSync(detail.logPath!, 'utf8')).toContain(said);
    expect(logs.flatMap((l) => l.lines).some((l) => l.includes(said) && l.includes('pre-flight sizes the run for this host'))).toBe(true);
  });

  it("planned for this host: runs with its prediction, the runner's host figure the plan's", async () => {
    const { dataDir, history, deps } = setup();
    const sweep = await startSweep(start([specFor({ machineId: 'm-test', machineSource: 'detected' })]), deps);
    await sweep.done;
    const given = JSON.parse(fs.readFileSync(path.join(dataDir, 'specs', `${sweep.runIds[0]}.json`), 'utf8')) as RunSpec;
    expect(given.prediction?.hostPeakBytes).toBe(1e9);
    expect(fs.readFileSync(history.getRun(sweep.runIds[0])!.logPath!, 'utf8')).not.toContain("the plan's prediction");
  });

  it('planned for a loaded file or a catalogued machine: refused before anything is queued, naming the machine', async () => {
    const { history, deps } = setup();
    await expect(startSweep(start([specFor({ machineId: 'm-h200', machineSource: 'file' })]), deps)).rejects.toMatchObject({
      code: 'planned_elsewhere',
      field: 'specs',
      message: expect.stringContaining(
        `This plan is for ${H200_LABEL}, a loaded file, not this machine: plan for this machine to run here`,
      ),
    });
    await expect(startSweep(start([specFor({ machineId: null, machineSource: 'catalogued' })]), deps)).rejects.toThrow(
      /a catalogued machine, not this machine/,
    );
    expect(history.listRuns({}).runs).toHaveLength(0);
    // A loaded file of this very machine is this machine; an unstamped (older, hand-written) spec cannot be told.
    expect(predictionElsewhere(specFor({ machineId: 'm-test', machineSource: 'file' }), 'm-test')).toBeNull();
    expect(predictionElsewhere(tinySpec('zero3-offload'), 'm-test')).toBeNull();
  });

  it('end to end through the backend: plan/compute for the loaded H200 stamps its specs, runs/start refuses them', async () => {
    const dataDir = tmpDir('os-elsewhere-');
    const backend = createBackend({ dataDir, transport: 'cli' });
    backends.push(backend);
    const machine = buildMachine(loadHost('h200-sxm-x86'));
    const plan = await backend.invoke('plan/compute', {
      workload: { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 1 },
      machine,
    });
    expect(plan.profile.machineSource).toBe('file');
    const spec = plan.strategies.find((s) => s.fits && s.spec.prediction)!.spec;
    expect(spec.prediction).toMatchObject({ machineId: machine.machineId, machineSource: 'file', machineLabel: plan.profile.machineLabel });
    await expect(backend.invoke('runs/start', { specs: [spec], steps: 1, warmup: 0 })).rejects.toThrow(
      /This plan is for .*, a loaded file, not this machine: plan for this machine to run here/,
    );
    expect((await backend.invoke('runs/list', {})).runs).toHaveLength(0);
  });
});
