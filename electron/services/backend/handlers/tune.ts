// tune/start and tune/cancel: the closed loop (tune-loop.ts) behind the contract, for the app and
// `serve`. One tune at a time; progress lines and the result come as tune/progress events.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../contract';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { runTuneLoop, TuneError, type TuneBus } from '../tune-loop';
import { modelOfWorkload } from './model-guard';
import { refuseRunsForFileMachine } from './run-here';

export function tuneHandlers(ctx: BackendContext, bus: () => TuneBus): HandlerMap<'tune/start' | 'tune/cancel'> {
  let running: { id: string; cancelled: boolean } | null = null;
  ctx.onClose(() => {
    if (running) running.cancelled = true;
  });
  return {
    'tune/start': async (request) => {
      // A path as the model is refused here at once, as by plan/compute (which the loop calls) later.
      request.workload.model = await modelOfWorkload(ctx, request.workload.model);
      // Its trials run here: not while this session plans for a loaded machine (run-here.ts).
      await refuseRunsForFileMachine(ctx, 'tunes');
      // From here on synchronous: of two starts, the second sees the first's `running`.
      if (running) throw new ApiError('busy', 'A tune is already running; cancel it or wait for it.');
      const me = { id: `tune-${randomUUID().slice(0, 8)}`, cancelled: false };
      running = me;
      const say = (line: string) => ctx.emit('tune/progress', { tuneId: me.id, line, done: false, result: null, error: null });
      void runTuneLoop(bus(), {
        workload: request.workload,
        budgetSeconds: request.budgetMinutes * 60,
        maxTrials: request.maxTrials,
        steps: request.steps,
        warmup: request.warmup,
        noise: request.noise,
        strategies: request.strategies,
        baseline: request.baseline,
        python: request.python,
        slurm: request.slurm,
        say,
        cancelled: () => me.cancelled,
      })
        .then((result) =>
          ctx.emit('tune/progress', {
            tuneId: me.id,
            line: result.winner
              ? `stopped: ${result.stopReason}; winner ${result.winner.strategyId} (${result.winner.runId})`
              : `stopped: ${result.stopReason}; no trial completed`,
            done: true,
            result,
            error: null,
          }),
        )
        .catch((error: unknown) =>
          ctx.emit('tune/progress', {
            tuneId: me.id,
            line: `tune failed: ${error instanceof Error ? error.message : String(error)}`,
            done: true,
            result: null,
            error: {
              message: error instanceof Error ? error.message : String(error),
              field: error instanceof TuneError ? error.field : null,
            },
          }),
        )
        .finally(() => {
          if (running === me) running = null;
        });
      return { tuneId: me.id };
    },
    'tune/cancel': (request) => {
      if (!running || running.id !== request.tuneId) return { cancelled: false };
      running.cancelled = true;
      return { cancelled: true };
    },
  };
}
