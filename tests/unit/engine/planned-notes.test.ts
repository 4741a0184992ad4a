// Planned is run (issue 46 item 5): a workload request runs the plan's configuration for the strategy, and the
// run's log — live and stored — says which, so a micro batch other than the one `plan` showed is never silent.
import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { parseRequest, type RunLogEvent } from '../../../electron/contract';
import { startSweep, type SweepDeps } from '../../../electron/services/engine';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import { FAKE_MACHINE, fakeLaunch, fixedPlanner, tmpDir } from './helpers';

const stores: HistoryStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

it("says in the run's log that it runs the plan's micro batch and knobs for the strategy on this machine", async () => {
  const dataDir = tmpDir();
  const history = openHistory(dataDir);
  stores.push(history);
  const logs: RunLogEvent[] = [];
  const deps: SweepDeps = {
    history,
    dataDir,
    planner: fixedPlanner,
    events: { progress: () => undefined, status: () => undefined, log: (e) => logs.push(e) },
    machine: async () => FAKE_MACHINE,
    launch: (specFile) => fakeLaunch(specFile, 'ok'),
    graceMs: 500,
  };
  const request = parseRequest('runs/start', {
    workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
    strategies: ['gpu-zero1'],
    steps: 2,
    warmup: 1,
  });
  const sweep = await startSweep(request, deps);
  await sweep.done;
  const spec = history.getRun(sweep.runIds[0])!;
  const said =
    /\[offload-studio\] gpu-zero1 runs micro batch \d+ × accumulation \d+.*: the plan's configuration for this strategy on this machine, as `plan` shows it/;
  expect(fs.readFileSync(spec.logPath!, 'utf8')).toMatch(said);
  expect(logs.flatMap((l) => l.lines).some((l) => said.test(l))).toBe(true);
});
