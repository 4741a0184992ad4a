// A model given as a file path is read on the machine running the backend. That is the point
// for the CLI (`plan --model ./config.json`), but over IPC or the headless server the path comes
// from a page: reading it would let a client probe the server's files. Those transports send a
// preset id, or the config's text through plan/import-hf-config.
import { ApiError } from '../../../contract';
import { looksLikePath } from '../../tuner';
import type { BackendContext } from '../context';

export function refuseModelPath(ctx: BackendContext, model: unknown): void {
  if (ctx.transport === 'cli' || typeof model !== 'string') return;
  if (looksLikePath(model))
    throw new ApiError(
      'bad_request',
      "field 'workload.model': a file path is not accepted here; choose a preset id, or import the config.json (the Plan page's import reads it in the browser)",
      'workload.model',
    );
}
