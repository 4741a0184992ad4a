// hardware/measure, hardware/measure-cancel and the hardware/measure-progress event. One
// measurement at a time: a second request while one runs is refused (both would fight over
// the same cores and memory bus and measure nothing useful).
import { ApiError } from '../../../contract';
import { measureHost } from '../../hardware';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function measureHandlers(ctx: BackendContext): HandlerMap<'hardware/measure' | 'hardware/measure-cancel'> {
  let running: AbortController | null = null;
  ctx.onClose(() => running?.abort());
  return {
    'hardware/measure': async (request) => {
      if (running) throw new ApiError('busy', 'A host measurement is already running; cancel it or wait for it.');
      const controller = new AbortController();
      running = controller;
      try {
        return await measureHost({
          budgetSeconds: request.budgetSeconds,
          include: request.include,
          signal: controller.signal,
          dataDir: ctx.dataDir,
          onProgress: (progress) => ctx.emit('hardware/measure-progress', progress),
        });
      } finally {
        if (running === controller) running = null;
      }
    },
    'hardware/measure-cancel': () => {
      if (!running) return { cancelled: false };
      running.abort();
      return { cancelled: true };
    },
  };
}
