// plan/* channels: the tuner's pure functions behind the contract. The machine defaults to the
// detected one (through the hardware service), measurements to <dataDir>/measurements.json.
import { ApiError } from '../../../contract';
import { loadLatestMeasurement } from '../../hardware';
import { computePlan, generateConfig, importHfConfig, parseWorkload, presetsPayload, strategyById, validateDsConfig, validateFsdpBlock } from '../../tuner';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { calibrate } from './calibration';
import { refuseModelPath } from './model-guard';

type PlanChannels = 'plan/presets' | 'plan/compute' | 'plan/import-hf-config' | 'plan/config';

export function planHandlers(ctx: BackendContext): HandlerMap<PlanChannels> {
  const detect = () => ctx.machine();
  const measurements = () => {
    try {
      return loadLatestMeasurement(ctx.dataDir) ?? undefined;
    } catch {
      return undefined; // never measured or unreadable: catalogued figures
    }
  };
  return {
    'plan/presets': () => presetsPayload(),
    'plan/compute': async (request) => {
      refuseModelPath(ctx, request.workload?.model);
      const measured = measurements();
      // Calibrate only when planning for this machine (not a file, not a scenario's catalogued one).
      const forThisMachine = request.machine === undefined && request.scenario === undefined;
      const fit = forThisMachine ? calibrate(ctx.history, await detect(), measured) : null;
      const plan = await computePlan({
        workload: request.workload,
        scenario: request.scenario,
        machine: request.machine,
        detect,
        measurements: measured,
        calibration: fit ? { '*': fit.factors } : undefined,
      });
      if (fit)
        plan.notes.push(
          `Calibrated from ${fit.samples} completed run(s) on this machine: step-time error ${(fit.rmsRelativeErrorBefore * 100).toFixed(0)}% (catalogued model) → ${(fit.rmsRelativeErrorAfter * 100).toFixed(0)}% (fitted) RMS.`,
        );
      return plan;
    },
    'plan/import-hf-config': (request) => importHfConfig(request.text, request.id),
    'plan/config': (request) => {
      refuseModelPath(ctx, request.workload.model);
      const workload = parseWorkload(request.workload);
      const strategy = strategyById(request.strategyId);
      const config = request.config ?? generateConfig(strategy, workload, workload.cpuadamCoresPerc);
      const validation = strategy.engine === 'deepspeed' ? validateDsConfig(config, workload) : validateFsdpBlock(config);
      if (!config) throw new ApiError('bad_request', 'no config');
      return { config, validation };
    },
  };
}
