// plan/user-config and plan/launch-export: a user's own ds_config planned on this machine (or a loaded
// one), with what this machine's history measured of it and of the tuned alternative; and the files and
// launch lines a spec leaves the app as. The machine is resolved as plan/compute resolves it.
import { isFromFile, forMachine } from './calibration';
import { launchExport, parseMachine, planUserConfig } from '../../tuner';
import type { Machine, UserConfigPlan } from '../../../contract';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { refuseModelPath } from './model-guard';

/** Best completed tokens/s of the user's file (by its sha256) and of the workload's other runs on these machines. */
function measuredGain(ctx: BackendContext, result: UserConfigPlan, machineIds: string[]): UserConfigPlan['measured'] {
  if (!machineIds.length) return null;
  const marks = machineIds.map(() => '?').join(',');
  const best = (extra: string, ...args: (string | number)[]) =>
    ctx.history.db
      .prepare(
        `SELECT MAX(r.tokens_per_second) AS tps, COUNT(*) AS n FROM runs r JOIN run_details d ON d.run_id = r.id
         WHERE r.status = 'completed' AND r.tokens_per_second > 0 AND r.machine_id IN (${marks})
           AND json_extract(d.spec, '$.seqLen') = ? AND json_extract(d.spec, '$.gpus') = ? AND json_extract(d.spec, '$.model.hiddenSize') = ?
           AND json_extract(d.spec, '$.model.numLayers') = ? ${extra}`,
      )
      .get(...machineIds, result.spec.seqLen, result.spec.gpus, result.spec.model.hiddenSize, result.spec.model.numLayers, ...args) as { tps: number | null; n: number };
  const yours = best(`AND json_extract(d.spec, '$.userConfig.sha256') = ?`, result.sha256);
  const others = best(`AND (json_extract(d.spec, '$.userConfig.sha256') IS NULL OR json_extract(d.spec, '$.userConfig.sha256') <> ?)`, result.sha256);
  if (!yours.n && !others.n) return null;
  return {
    yoursTokensPerSecond: yours.tps,
    tunedTokensPerSecond: others.tps,
    gain: yours.tps && others.tps ? others.tps / yours.tps : null,
    runs: yours.n + others.n,
  };
}

export function userConfigHandlers(ctx: BackendContext): HandlerMap<'plan/user-config' | 'plan/launch-export'> {
  return {
    'plan/user-config': async (request) => {
      refuseModelPath(ctx, request.workload.model);
      let target: Machine;
      let thisHost = false;
      if (request.machine !== undefined) target = parseMachine(request.machine);
      else {
        target = await ctx.machine();
        thisHost = !isFromFile(target);
      }
      const own = forMachine(ctx.dataDir, ctx.history, target, thisHost);
      const source = request.machine !== undefined || !thisHost ? 'file' : 'detected';
      const result = planUserConfig(request, { machine: target, machineSource: source, measurements: own.measurements, calibration: own.calibration, memory: own.memory });
      result.plan.notes.push(...own.notes);
      // every prediction says which machine it is for (runs/start refuses a loaded machine's)
      const planned = { machineId: target.machineId ?? null, machineSource: source, machineLabel: result.plan.profile.machineLabel } as const;
      for (const spec of [result.spec, result.tuned?.spec, result.yours?.spec, ...result.plan.strategies.map((s) => s.spec)])
        if (spec?.prediction) spec.prediction = { ...spec.prediction, ...planned };
      result.measured = measuredGain(ctx, result, own.runMachineIds);
      return result;
    },
    'plan/launch-export': (request) => launchExport(request.spec, { script: request.script }),
  };
}
