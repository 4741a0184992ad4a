// Files a person names on the command line (--model, --machine, --specs, measure --import,
// cluster save, convert-sweep --snapshot) are read through services/files: regular files only, at
// most the limit below, so a FIFO, a device (/dev/zero) or a huge file is refused with its path
// instead of hanging the CLI or filling memory. import-runs is read by the history service, which
// applies the same rules with its own 64 MiB limit.
import fs from 'node:fs';
import path from 'node:path';
import { MODEL_CONFIG_MAX_BYTES, checkRegularFile } from '../services/files';

const MiB = 1024 * 1024;

/** The most read of each kind of file; each is far above a real one of its kind. */
export const INPUT_LIMITS = {
  /** A Hugging Face config.json: a few KiB. */
  modelConfig: MODEL_CONFIG_MAX_BYTES,
  /** A user's ds_config.json: a few KiB (the same 1 MiB plan/user-config takes). */
  dsConfig: 1 * MiB,
  /** A RunSpec (plan --write-specs): a few KiB. */
  spec: 4 * MiB,
  /** A `detect --json` machine file: well under 1 MiB. */
  machine: 16 * MiB,
  /** Another machine's `measure --json` (or the native driver's output). */
  measurements: 16 * MiB,
  /** A cluster definition: at most 256 hosts. */
  cluster: 1 * MiB,
};

/**
 * --model as runs/start and tune take it: a preset id as typed, a config.json or a model folder as
 * an absolute path. The file read (the folder's config.json for a folder) is checked here, so the
 * refusal names the flag; the backend reads it bounded as well (model-guard).
 */
export function modelFlagPath(model: string): string {
  if (!fs.existsSync(model)) return model;
  const file = fs.statSync(model).isDirectory() ? path.join(model, 'config.json') : model;
  // A folder without a config.json is refused here too ("…/config.json: no such file").
  checkRegularFile(file, { label: '--model', maxBytes: INPUT_LIMITS.modelConfig, field: 'model' });
  return path.resolve(model);
}
