// A model given as a file path is read on the machine running the backend. That is the point
// for the CLI (`plan --model ./config.json`), but over IPC or the headless server the path comes
// from a page: reading it would let a client probe the server's files. Those transports send a
// preset id, or the config's text through plan/import-hf-config.
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, type ModelArch } from '../../../contract';
import { MODEL_CONFIG_MAX_BYTES, readRegularText } from '../../files';
import { chooseInterpreter, importProbedConfig, selectedInterpreter } from '../../environment';
import { checkHfConfigFields, hfConfigName, looksLikePath, parseHfConfigText, presetsPayload } from '../../tuner';
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

/**
 * The workload's model as the tuner takes it. A config.json path from the CLI (`--model
 * ./config.json`) is read here and counted like the Plan page's import — by transformers in the
 * engine environment, any architecture it knows, refused by name or "Parameter count unavailable"
 * without that environment (environment/model-import.ts) — rather than by the tuner's formula
 * for four families. A preset id or an inline architecture passes unchanged; a path over IPC or
 * the server is refused (refuseModelPath).
 */
export async function modelOfWorkload<T>(ctx: BackendContext, model: T): Promise<T | ModelArch> {
  refuseModelPath(ctx, model);
  if (typeof model !== 'string' || !looksLikePath(model) || presetsPayload().models.some((m) => m.id === model.toLowerCase())) return model;
  let configFile: string;
  try {
    // A model folder (as downloaded from the Hub) is read through its config.json.
    configFile = fs.statSync(model).isDirectory() ? path.join(model, 'config.json') : model;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ApiError(
      code === 'ENOENT' ? 'not_found' : 'bad_model_file',
      `model config '${model}' ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}`,
      'model',
    );
  }
  // Bounded and regular only: a folder's config.json linked to /dev/zero filled 16 GB here, a FIFO
  // hung `run`/`tune` in open() past SIGINT and SIGTERM.
  const text = readRegularText(configFile, { label: 'model config', maxBytes: MODEL_CONFIG_MAX_BYTES, field: 'model' });
  const config = parseHfConfigText(text);
  checkHfConfigFields(config);
  // The id as the tuner's resolveModel names a file: its folder for …/<model>/config.json.
  const parts = model.replace(/\\/g, '/').replace(/\/+$/, '').split('/');
  const file = parts[parts.length - 1].replace(/\.json$/, '');
  const id = file === 'config' && parts.length > 1 ? parts[parts.length - 2] : file;
  return importProbedConfig(config, text, hfConfigName(config, id.toLowerCase()), {
    python: await enginePython(ctx.dataDir),
    dataDir: ctx.dataDir,
  });
}

/** The interpreter the probe runs in: the selected one, else the newest engine venv. */
export async function enginePython(dataDir: string): Promise<string> {
  const selected = await selectedInterpreter(dataDir);
  try {
    return chooseInterpreter(selected).python;
  } catch {
    return selected ?? 'python3'; // a selected interpreter that is gone: the probe says unavailable
  }
}
