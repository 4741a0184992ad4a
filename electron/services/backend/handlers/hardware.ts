import { diskFree } from '../../hardware';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function hardwareHandlers(ctx: BackendContext): HandlerMap<'hardware/detect' | 'hardware/disk-free'> {
  // Detection reads ~40 sources; the machine does not change while the app runs, so one
  // detection (ctx.machine caches it) serves every page until a refresh is asked for.
  return {
    'hardware/detect': (request) => ctx.machine(request.refresh ?? false),
    'hardware/disk-free': (request) => diskFree(request.path),
  };
}
