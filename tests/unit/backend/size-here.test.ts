// A plan for another machine, run here, the pre-flight half: the pre-flight must size the run it is about to start on THIS
// host. A 3B ZeRO-1 started on a CPU box passed the pre-flight on "~2.0 GiB host (the plan's
// prediction)" and grew past 12 GB in 48 s. runs/start now asks the tuner for this machine's estimate
// of the spec's own workload and hands it to the runner (spec.preflightMemory); the run's log says
// which figure the pre-flight checks and what the plan had said. The runner's side of it (refusing
// against MemAvailable with both numbers) is tests/engine/test_preflight.py.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRequest, type Machine, type RunSpec } from '../../../electron/contract';
import { startSweep, type SweepDeps } from '../../../electron/services/engine';
import { sizeRunHere } from '../../../electron/services/backend/size-here';
import { buildMachine } from '../../../electron/services/hardware';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { planWorkload } from '../../../electron/services/tuner';
import { loadHost } from '../hardware/fixture-host';
import { fakeLaunch, fixedPlanner, tmpDir } from '../engine/helpers';

const GiB = 1024 ** 3;
const stores: HistoryStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const cpuBox = buildMachine(loadHost('ci-vm-no-gpu'));
const h200 = buildMachine(loadHost('h200-sxm-x86'));

/** The plan's spec of `strategy` for a 3B model, as the Plan page made it for `machine` (the tuner names the machine in its prediction). */
function planned3b(strategy: string, machine: Machine, source: 'detected' | 'file'): RunSpec {
  const plan = planWorkload(
    { model: 'llama-3.2-3b', seqLen: 256, microBatch: 1, gpus: 1 },
    { machine, machineSource: source, strategies: [strategy] },
  );
  return plan.strategies.find((s) => s.id === strategy)!.spec;
}

async function runOnCpuBox(spec: RunSpec, mode = 'ok') {
  const dataDir = tmpDir('os-size-here-');
  const history = openHistory(dataDir);
  stores.push(history);
  const live: string[] = [];
  const deps: SweepDeps = {
    history,
    dataDir,
    // the backend's sizing, handed to the sweep as the backend hands it
    planner: { ...fixedPlanner, sizeHere: sizeRunHere },
    events: { progress: () => undefined, status: () => undefined, log: (e) => live.push(...e.lines) },
    machine: async () => cpuBox,
    launch: (specFile) => fakeLaunch(specFile, mode),
    graceMs: 500,
  };
  const sweep = await startSweep(parseRequest('runs/start', { specs: [spec], steps: 1, warmup: 0 }), deps);
  await sweep.done;
  const given = JSON.parse(fs.readFileSync(path.join(dataDir, 'specs', `${sweep.runIds[0]}.json`), 'utf8')) as RunSpec;
  const log = fs.readFileSync(history.getRun(sweep.runIds[0])!.logPath!, 'utf8');
  return { given, log, live: live.join('\n') };
}

describe('the pre-flight sizes the run on the host it starts on', () => {
  it("a 3B ZeRO-1 forced onto this CPU box: the runner checks ~this host's need, not the plan's 2 GiB host side", async () => {
    const spec = planned3b('gpu-zero1', cpuBox, 'detected');
    expect(spec.prediction!.hostPeakBytes).toBeLessThan(3 * GiB); // what the pre-flight used to check
    const { given, log } = await runOnCpuBox(spec);
    // bf16 weights, fp32 master, Adam and gradients all in host memory: tens of GiB, more than the box has.
    expect(given.preflightMemory!.hostBytes).toBeGreaterThan(40 * GiB);
    expect(given.preflightMemory!.hostBytes).toBeGreaterThan(cpuBox.memory.totalBytes);
    expect(given.preflightMemory!.gpuBytes).toBeNull();
    expect(given.preflightMemory!.basis).toMatch(
      /^this host's estimate for ZeRO-1 .*no GPU here, so DeepSpeed's CPU accelerator keeps the .* GiB a GPU would hold in host memory too/,
    );
    expect(given.prediction).toEqual(spec.prediction); // the plan's figures are still what is stored beside the run
    expect(log).toMatch(
      /\[offload-studio\] pre-flight: this run needs ~\d+\.\d GiB of host memory on this host \(this host's estimate .*\); the plan's prediction said \d\.\d GiB\./,
    );
  });

  it('a spec planned on another detected host (an H200): its prediction is dropped and the run is sized here', async () => {
    const spec = planned3b('zero3-offload', h200, 'detected');
    const { given, log } = await runOnCpuBox(spec);
    expect(given.prediction).toBeNull();
    const here = sizeRunHere(spec, cpuBox)!;
    expect(given.preflightMemory).toEqual(here);
    expect(here.hostBytes).toBeGreaterThan(sizeRunHere(spec, h200)!.hostBytes); // the GPU side lands in host memory here
    expect(log).toContain('pre-flight: this run needs');
  });

  it("the run's log says a failed warning of the pre-flight as WARN (the run goes on), a passed check as ok", async () => {
    // The live log view (runs/log events) shows the runner's checks one line each.
    const { live } = await runOnCpuBox(planned3b('zero3-offload', cpuBox, 'detected'), 'preflight-warn');
    expect(live).toContain('[preflight] ok   host_memory — need ~5.8 GiB');
    expect(live).toContain(
      "[preflight] WARN gpu_memory — this host's estimate is ~70.0 GiB per GPU; this GPU has 60.0 GiB free of 80.0 GiB",
    );
    expect(live).not.toContain('FAIL');
  });

  it('on a GPU host the figure is the host side, with the per-GPU estimate beside it; unknown machines are not sized', () => {
    const spec = planned3b('zero3-offload', h200, 'detected');
    const sized = sizeRunHere(spec, h200)!;
    expect(sized.gpuBytes).toBeGreaterThan(0);
    expect(sized.basis).toMatch(/the host side of the run, per node$/);
    // Same figure as the plan made for that host (same workload, knobs and machine).
    expect(Math.abs(sized.hostBytes - spec.prediction!.hostPeakBytes) / spec.prediction!.hostPeakBytes).toBeLessThan(0.05);
    expect(sizeRunHere(spec, { machineId: 'x' })).toBeNull();
    expect(sizeRunHere({ ...spec, strategy: 'custom' }, h200)).toBeNull();
  });
});
