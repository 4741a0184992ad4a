// plan/* channels: the tuner's pure functions behind the contract. The machine defaults to the
// detected one (through the hardware service), measurements to <dataDir>/measurements.json.
import { ApiError } from '../../../contract';
import { detectMachine } from '../../hardware';
import { loadLatestMeasurement } from '../../hardware';
import { computePlan, generateConfig, importHfConfig, parseWorkload, presetsPayload, strategyById, validateDsConfig, validateFsdpBlock } from '../../tuner';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

type PlanChannels = 'plan/presets' | 'plan/compute' | 'plan/import-hf-config' | 'plan/config';

export function planHandlers(ctx: BackendContext): HandlerMap<PlanChannels> {
  let machine: ReturnType<typeof detectMachine> | null = null;
  const detect = () => (machine ??= detectMachine());
  const measurements = () => {
    try {
      return loadLatestMeasurement(ctx.dataDir) ?? undefined;
    } catch {
      return undefined; // never measured or unreadable: catalogued figures
    }
  };
  return {
    'plan/presets': () => presetsPayload(),
    'plan/compute': (request) =>
      computePlan({ workload: request.workload, scenario: request.scenario, machine: request.machine, detect, measurements: measurements() }),
    'plan/import-hf-config': (request) => importHfConfig(request.text, request.id),
    'plan/config': (request) => {
      const workload = parseWorkload(request.workload);
      const strategy = strategyById(request.strategyId);
      const config = request.config ?? generateConfig(strategy, workload, workload.cpuadamCoresPerc);
      const validation = strategy.engine === 'deepspeed' ? validateDsConfig(config, workload) : validateFsdpBlock(config);
      if (!config) throw new ApiError('bad_request', 'no config');
      return { config, validation };
    },
  };
}
