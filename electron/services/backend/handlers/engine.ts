// runs/start, runs/cancel, runs/get: the engine service wired to the contract. The sweep runs in
// the background; its progress, status and log reach every transport as events.
import { ApiError } from '../../../contract';
import { EngineService } from '../../engine';
import { createTunerPlanner } from '../tuner-planner';
import { selectedInterpreter } from '../../environment';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { forMachine, isFromFile } from './calibration';
import { modelOfWorkload } from './model-guard';
import { refuseRunsForFileMachine } from './run-here';

export function engineHandlers(ctx: BackendContext): HandlerMap<'runs/start' | 'runs/cancel' | 'runs/get'> {
  // The machine's own measurements and per-strategy calibration (handlers/calibration.ts), as plan/compute uses.
  const own = (machine: Parameters<typeof forMachine>[2]) => forMachine(ctx.dataDir, ctx.history, machine, !isFromFile(machine));
  const engine = new EngineService({
    // A workload + strategies request runs the specs plan/compute shows for it on this machine
    // (same measurements, same calibration, same memory evidence: one forMachine per start); a specs request
    // runs its specs unchanged.
    planner: createTunerPlanner({ figures: own }),
    history: ctx.history,
    dataDir: ctx.dataDir,
    // Detected once per backend (hardware does not change under a running app) and stored per run.
    machine: () => ctx.machine(),
    // The interpreter chosen in Setup (environment/select); request.python still wins.
    selectedPython: () => selectedInterpreter(ctx.dataDir).catch(() => null),
    events: {
      progress: (e) => ctx.emit('runs/progress', e),
      status: (e) => ctx.emit('runs/status', e),
      log: (e) => ctx.emit('runs/log', e),
      resources: (e) => ctx.emit('runs/resources-live', e),
    },
  });
  ctx.onClose(async () => {
    await engine.close();
  });

  // Runs a crash left 'running' were marked interrupted when the store opened; say so. The notice
  // is kept until a client acknowledges it (a browser under `serve` connects long after this), and
  // emitted on the next tick so transports already subscribing (Electron, the CLI) get the event.
  const notice = ctx.history.recoveryNotice();
  if (notice) setTimeout(() => ctx.notify('warning', notice), 0);

  return {
    'runs/start': async (request) => {
      if (request.workload) request.workload.model = await modelOfWorkload(ctx, request.workload.model);
      await refuseRunsForFileMachine(ctx, 'runs');
      const sweep = await engine.start(request);
      return { sweepId: sweep.id, runIds: sweep.runIds, runs: sweep.runs };
    },
    'runs/cancel': (request) => ({ cancelled: engine.cancel(request.sweepId, request.force ?? false) }),
    'runs/get': async (request) => {
      // A run that was a Slurm job when the app last stopped: its real end first.
      await engine.jobsSettled;
      const run = ctx.history.getRun(request.id, request.logLines ?? 200);
      if (!run) throw new ApiError('not_found', `No run '${request.id}' in this data folder.`, 'id');
      return run;
    },
  };
}
