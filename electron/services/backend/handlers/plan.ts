// plan/* channels: the tuner's pure functions behind the contract. The machine defaults to the
// detected one (through the hardware service); the plan uses that machine's measurements and
// calibration (handlers/calibration.ts), never another host's.
import { ApiError, seqBeyondModel, type Machine, type PositionLimited } from '../../../contract';
import { importProbedConfig } from '../../environment';
import {
  checkHfConfigFields,
  computePlan,
  generateConfig,
  hfConfigName,
  parseHfConfigText,
  parseMachine,
  parseWorkload,
  presetsPayload,
  scenarioById,
  strategyById,
  validateDsConfig,
  validateFsdpBlock,
} from '../../tuner';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { forMachine, isFromFile } from './calibration';
import { kernelsForPlan } from './kernels';
import { enginePython, modelOfWorkload } from './model-guard';

type PlanChannels = 'plan/presets' | 'plan/compute' | 'plan/import-hf-config' | 'plan/config';

/** A sequence longer than the model reads (max_position_embeddings) is refused naming the field (1,000,000 was once planned). */
function refuseLongSequence(workload: { model?: unknown; seqLen?: number } | undefined): void {
  if (!workload || typeof workload.seqLen !== 'number' || workload.model === undefined) return;
  const arch =
    typeof workload.model === 'string' ? presetsPayload().models.find((m) => m.id === workload.model) : (workload.model as PositionLimited);
  const why = arch ? seqBeyondModel(arch, workload.seqLen) : null;
  if (why) throw new ApiError('bad_request', why, 'seqLen');
}

export function planHandlers(ctx: BackendContext): HandlerMap<PlanChannels> {
  const detect = () => ctx.machine();
  return {
    'plan/presets': () => presetsPayload(),
    'plan/compute': async (request) => {
      // (a scenario's workload may leave the model to the scenario: nothing to resolve then)
      if (request.workload?.model !== undefined) request.workload.model = await modelOfWorkload(ctx, request.workload.model);
      refuseLongSequence(request.workload);
      // The machine this plan is for: the request's, a scenario's catalogued one (never measured,
      // never run: no measurements, no calibration), or the backend's (this host, or --machine FILE).
      const catalogued = request.machine === undefined && !!request.scenario && !!scenarioById(request.scenario).machine;
      let target: Machine | null = null;
      let thisHost = false;
      if (request.machine !== undefined) target = parseMachine(request.machine);
      else if (!catalogued) {
        target = await detect();
        thisHost = !isFromFile(target);
      }
      const own = target ? forMachine(ctx.dataDir, ctx.history, target, thisHost) : null;
      const plan = await computePlan({
        workload: request.workload,
        scenario: request.scenario,
        // The backend's machine loaded with --machine FILE is a file's, not this host's: said so (source
        // 'file'), and its specs are not run here (run-here.ts).
        machine: request.machine ?? (target && !catalogued && !thisHost ? target : undefined),
        detect,
        measurements: own?.measurements,
        calibration: own?.calibration,
        memory: own?.memory,
        // the workload's own kernels on this host's GPU, or why not (handlers/kernels.ts)
        kernels: kernelsForPlan(ctx),
      });
      if (own) {
        plan.notes.push(...own.notes);
        plan.hostFigures = own.hostFigures;
      }
      // Each spec's prediction says which machine it was made for, as the tuner made it (its profile's
      // machine): runs/start refuses one planned for a loaded or catalogued machine.
      if (own && target) {
        // the time estimates' start-up per run: measured here (or on machines of its kind), not assumed
        const start = ctx.history.engineStartSeconds(own.runMachineIds, plan.model.id);
        if (start) plan.engineStart = start;
        // …and the step times of configurations already run here (a CPU run has no prediction to count)
        const steps = ctx.history.measuredStepSeconds(
          own.runMachineIds,
          plan.strategies.map((s) => s.spec.configHash),
        );
        if (Object.keys(steps).length) plan.measuredSteps = steps;
      }
      return plan;
    },
    // Counted by transformers in the engine environment (any architecture it knows), never by a
    // formula guessed for the file; without that environment the import says so (docs/models.md).
    'plan/import-hf-config': async (request) => {
      const config = parseHfConfigText(request.text);
      checkHfConfigFields(config);
      return importProbedConfig(config, request.text, hfConfigName(config, request.id), {
        python: await enginePython(ctx.dataDir),
        dataDir: ctx.dataDir,
      });
    },
    'plan/config': async (request) => {
      request.workload.model = await modelOfWorkload(ctx, request.workload.model);
      const workload = parseWorkload(request.workload);
      const strategy = strategyById(request.strategyId);
      const config = request.config ?? generateConfig(strategy, workload);
      const validation = strategy.engine === 'deepspeed' ? validateDsConfig(config, workload) : validateFsdpBlock(config);
      if (!config) throw new ApiError('bad_request', 'no config');
      return { config, validation };
    },
  };
}
