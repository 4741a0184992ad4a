// plan/user-config and plan/launch-export: a user's own ds_config planned on this machine (or a loaded
// one), with what this machine's history measured of it and of the tuned alternative; and the files and
// launch lines a spec leaves the app as. The machine is resolved as plan/compute resolves it.
import { isFromFile, forMachine } from './calibration';
import { parseMachine, planUserConfig } from '../../tuner';
import { launchExport, worldSize, type Machine, type UserConfigPlan } from '../../../contract';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { modelOfWorkload } from './model-guard';

/** What this machine's history measured of the user's file and of the workload's other configurations. */
function measuredGain(ctx: BackendContext, result: UserConfigPlan, machineIds: string[]): UserConfigPlan['measured'] {
  const { seqLen, model } = result.spec;
  const best = ctx.history.bestTokensPerSecondByUserConfig(
    machineIds,
    { seqLen, worldSize: worldSize(result.spec), hiddenSize: model.hiddenSize, numLayers: model.numLayers },
    result.sha256,
  );
  if (!best || (!best.yours.runs && !best.others.runs)) return null;
  const { yours, others } = best;
  return {
    yoursTokensPerSecond: yours.tps,
    tunedTokensPerSecond: others.tps,
    gain: yours.tps && others.tps ? others.tps / yours.tps : null,
    runs: yours.runs + others.runs,
  };
}

export function userConfigHandlers(ctx: BackendContext): HandlerMap<'plan/user-config' | 'plan/launch-export'> {
  return {
    'plan/user-config': async (request) => {
      request.workload.model = await modelOfWorkload(ctx, request.workload.model);
      let target: Machine;
      let thisHost = false;
      if (request.machine !== undefined) target = parseMachine(request.machine);
      else {
        target = await ctx.machine();
        thisHost = !isFromFile(target);
      }
      const own = forMachine(ctx.dataDir, ctx.history, target, thisHost);
      const source = request.machine !== undefined || !thisHost ? 'file' : 'detected';
      const result = planUserConfig(request, {
        machine: target,
        machineSource: source,
        measurements: own.measurements,
        calibration: own.calibration,
        memory: own.memory,
      });
      result.plan.notes.push(...own.notes);
      // every prediction says which machine it is for as the tuner made it (runs/start refuses a loaded machine's)
      result.measured = measuredGain(ctx, result, own.runMachineIds);
      return result;
    },
    'plan/launch-export': (request) => launchExport(request.spec, { script: request.script }),
  };
}
