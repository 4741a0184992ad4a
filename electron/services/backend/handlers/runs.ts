import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function runsHandlers(ctx: BackendContext): HandlerMap<'runs/list'> {
  return {
    'runs/list': (request) => ctx.history.listRuns(request),
  };
}
