// Model resolution: a preset id, a path to a Hugging Face config.json, or an inline architecture.
import fs from 'node:fs';
import { ApiError, type ModelArch } from '../../../contract';
import { importHfConfig } from './hf-config';
import { MODEL_CONFIG_MAX_BYTES, readRegularText } from '../../files';
import { catalog } from './presets';

/** A model argument that names a file (a config.json) rather than a preset id. */
export function looksLikePath(s: string): boolean {
  return s.endsWith('.json') || s.includes('/') || s.includes('\\');
}

/** `llama-3.1-8b` → its preset; `path/to/config.json` → the imported architecture. */
export function resolveModel(idOrPath: string | ModelArch): ModelArch {
  if (typeof idOrPath !== 'string') return idOrPath;
  const preset = catalog().models.find((m) => m.id === idOrPath.toLowerCase());
  if (preset) return preset;
  if (looksLikePath(idOrPath)) {
    if (!fs.existsSync(idOrPath)) throw new ApiError('not_found', `model config '${idOrPath}' does not exist`, 'model');
    const base = idOrPath.replace(/\\/g, '/').split('/');
    const dir = base.length > 1 ? base[base.length - 2] : undefined;
    const file = base[base.length - 1].replace(/\.json$/, '');
    // Never echo the file's content: over `serve` this path comes from the wire, and a parse
    // error quoting it would read any file (/etc/passwd) back to the client.
    // Regular and bounded (a FIFO would hang here, /dev/zero fill memory): refused with its path.
    const text = readRegularText(idOrPath, { label: 'model config', maxBytes: MODEL_CONFIG_MAX_BYTES, field: 'model' });
    try {
      return importHfConfig(text, file === 'config' && dir ? dir : file);
    } catch {
      throw new ApiError('bad_model_file', `model config '${idOrPath}' is not a readable Hugging Face config.json`, 'model');
    }
  }
  throw new ApiError(
    'unknown_model',
    `unknown model '${idOrPath}' (presets: ${catalog()
      .models.map((m) => m.id)
      .join(', ')}; or a path to a config.json)`,
    'model',
  );
}
