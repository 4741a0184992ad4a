// runs/resources: a run's stored resource record, read as an attribution beside the
// tuner's predicted terms for its configuration. The terms are the tuner's for the run's own spec on
// the run's machine snapshot, with the calibration plan/compute would use for that machine now.
import {
  ApiError,
  formatFigure,
  hasPrediction,
  MachineSchema,
  NO_PREDICTION_WHY,
  type RunDetail,
  type RunResources,
} from '../../../contract';
import { attribute, type PredictedInput } from '../../monitor';
import * as tuner from '../../tuner';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { forMachine } from './calibration';

/** The tuner's terms for the run's spec, or why there are none. Never throws: the lanes stand without them. */
export function predictedTermsOf(ctx: Pick<BackendContext, 'dataDir' | 'history'>, run: RunDetail): PredictedInput {
  const stored = (run.predicted as { stepSeconds?: unknown } | null)?.stepSeconds;
  // A CPU smoke run's plan stored zeros: no prediction, not a prediction of 0 s.
  const stepSeconds = typeof stored === 'number' && hasPrediction({ stepSeconds: stored }) ? stored : null;
  const machine = MachineSchema.safeParse(run.snapshot);
  if (!machine.success)
    return { stepSeconds, terms: null, note: 'predicted terms not available: the run has no machine snapshot to predict for' };
  try {
    // The tuner's own reading of a stored run (what calibration uses): strategy, workload, knobs.
    const ran = tuner.storedRunWorkload({
      runId: run.summary.id,
      strategy: run.summary.strategy,
      spec: run.spec,
      config: run.config,
      model: run.summary.model,
    });
    if (!ran)
      return {
        stepSeconds,
        terms: null,
        note: 'predicted terms not available: the tuner does not model this run (a custom config, or a model or strategy it no longer knows)',
      };
    const own = forMachine(ctx.dataDir, ctx.history, machine.data, false);
    const p = tuner.predict(ran.workload, ran.strategyId, machine.data, own.measurements, own.calibration?.[ran.strategyId], ran.knobs);
    // On a machine without a GPU the tuner's terms are all 0: no prediction, said as the Plan table says it.
    if (!hasPrediction(p))
      return { stepSeconds, terms: null, note: `${NO_PREDICTION_WHY}: the tuner predicts GPU steps; this run's machine has none` };
    const calibrated = p.calibrated ? "calibrated with this machine kind's runs" : 'uncalibrated';
    const stored = stepSeconds !== null ? `; the plan stored ${formatFigure(stepSeconds, 3)} s when the run was planned` : '';
    return {
      stepSeconds: p.stepSeconds,
      terms: p.terms,
      note: `the tuner's terms for this run's spec on its machine (${calibrated}, as of now)${stored}`,
    };
  } catch (error) {
    return {
      stepSeconds,
      terms: null,
      note: `predicted terms not available: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
    };
  }
}

/** A run's resources as runs/resources answers (the report's resource section reads the same). */
export function runResources(ctx: Pick<BackendContext, 'dataDir' | 'history'>, id: string): RunResources {
  const run = ctx.history.getRun(id, 0);
  if (!run) throw new ApiError('not_found', `No run '${id}' in this data folder.`, 'id');
  const record = ctx.history.resources(id);
  if (!record)
    return {
      runId: id,
      record: null,
      attribution: null,
      missing:
        run.summary.status === 'queued'
          ? 'the run has not started'
          : run.summary.status === 'running'
            ? 'the run is still running: its samples are stored when it ends (the live view shows them now)'
            : 'no resource samples were stored with this run (it ran before sampling, was imported, or ran with OFFLOAD_STUDIO_RESOURCES=off)',
    };
  return { runId: id, record, missing: null, attribution: attribute(record, predictedTermsOf(ctx, run)) };
}

export function resourcesHandlers(ctx: BackendContext): HandlerMap<'runs/resources'> {
  return {
    'runs/resources': (request) => runResources(ctx, request.id),
  };
}
