import type { ResponseOf } from '../../../contract';
import { detectMachine } from '../../hardware';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function hardwareHandlers(_ctx: BackendContext): HandlerMap<'hardware/detect'> {
  let machineCache: Promise<ResponseOf<'hardware/detect'>> | null = null;
  return {
    'hardware/detect': (request) => {
      if (!machineCache || request.refresh) machineCache = detectMachine();
      return machineCache;
    },
  };
}
