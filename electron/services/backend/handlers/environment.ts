import { ApiError } from '../../../contract';
import { currentInterpreter, listInterpreters, probeInterpreter, selectInterpreter, startInstall, type InstallHandle } from '../../environment';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

type EnvironmentChannel =
  | 'environment/list'
  | 'environment/probe'
  | 'environment/select'
  | 'environment/current'
  | 'environment/install'
  | 'environment/install-cancel';

export function environmentHandlers(ctx: BackendContext): HandlerMap<EnvironmentChannel> {
  let install: InstallHandle | null = null;
  ctx.onClose(async () => {
    if (install?.cancel()) await install.result; // never leave a pip process group behind
  });
  return {
    'environment/list': (request) => listInterpreters(ctx.dataDir, request),
    'environment/probe': (request) => probeInterpreter(request.path),
    'environment/select': (request) => selectInterpreter(ctx.dataDir, request.path),
    'environment/current': () => currentInterpreter(ctx.dataDir),
    'environment/install': async (request) => {
      if (install) throw new ApiError('busy', 'An engine install is already running; cancel it or wait for it to finish.');
      install = startInstall({ dataDir: ctx.dataDir, onProgress: (p) => ctx.emit('environment/install-progress', p) });
      try {
        const result = await install.result;
        if (result.ok && request.select !== false && result.python) await selectInterpreter(ctx.dataDir, result.python);
        return result;
      } finally {
        install = null;
      }
    },
    'environment/install-cancel': () => ({ cancelled: install?.cancel() ?? false }),
  };
}
