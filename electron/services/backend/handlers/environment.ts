import path from 'node:path';
import { ApiError } from '../../../contract';
import { createGate } from '../../../kernel';
import {
  createProbeCache,
  currentInterpreter,
  listInterpreters,
  probeInterpreter,
  selectInterpreter,
  startInstall,
  type InstallHandle,
} from '../../environment';
import { enginePath } from '../../resources';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

type EnvironmentChannel =
  | 'environment/list'
  | 'environment/probe'
  | 'environment/select'
  | 'environment/current'
  | 'environment/install'
  | 'environment/install-cancel';

/** Probes at once (each starts an interpreter) and waiting behind them; the same path in flight is shared. */
export const MAX_PROBES_RUNNING = 2;
export const MAX_PROBES_WAITING = 16;

export function environmentHandlers(ctx: BackendContext): HandlerMap<EnvironmentChannel> {
  let install: InstallHandle | null = null;
  // Every probe starts an interpreter: 200 requests must not start 200 of them.
  const probes = createGate<Awaited<ReturnType<typeof probeInterpreter>>>(
    MAX_PROBES_RUNNING,
    MAX_PROBES_WAITING,
    (active, waiting) =>
      `Too many interpreter probes at once (${active} running, ${waiting} waiting); wait for their answers, then probe again.`,
  );
  // Probe answers kept between Setup visits while each interpreter's files are unchanged.
  // Kept in the data folder too, so a restart of the app or serve does not probe everything again.
  const cache = createProbeCache({ script: enginePath('probe.py'), file: path.join(ctx.dataDir, 'probe-cache.json') });
  ctx.onClose(async () => {
    if (install?.cancel()) await install.result; // never leave a pip process group behind
  });
  return {
    'environment/list': ({ fresh, ...request }) => listInterpreters(ctx.dataDir, { ...request, fresh }, cache),
    'environment/probe': (request) => probes.run(request.path, () => probeInterpreter(request.path)),
    'environment/select': (request) => selectInterpreter(ctx.dataDir, request.path, cache),
    'environment/current': () => currentInterpreter(ctx.dataDir),
    'environment/install': async (request) => {
      if (install) throw new ApiError('busy', 'An engine install is already running; cancel it or wait for it to finish.');
      install = startInstall({ dataDir: ctx.dataDir, onProgress: (p) => ctx.emit('environment/install-progress', p) });
      try {
        const result = await install.result;
        cache.invalidate(); // the app's venv changed (or was swapped in)
        if (result.ok && request.select !== false && result.python) await selectInterpreter(ctx.dataDir, result.python);
        return result;
      } finally {
        install = null;
      }
    },
    'environment/install-cancel': () => ({ cancelled: install?.cancel() ?? false }),
  };
}
