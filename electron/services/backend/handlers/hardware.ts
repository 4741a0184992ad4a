import type { ResponseOf } from '../../../contract';
import { detectMachine, diskFree } from '../../hardware';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function hardwareHandlers(_ctx: BackendContext): HandlerMap<'hardware/detect' | 'hardware/disk-free'> {
  // Detection reads ~40 sources; the machine does not change while the app runs, so one
  // detection serves every page until a refresh is asked for.
  let machineCache: Promise<ResponseOf<'hardware/detect'>> | null = null;
  return {
    'hardware/detect': (request) => {
      if (!machineCache || request.refresh) {
        machineCache = detectMachine();
        machineCache.catch(() => (machineCache = null)); // a failed detection is not cached
      }
      return machineCache;
    },
    'hardware/disk-free': (request) => diskFree(request.path),
  };
}
