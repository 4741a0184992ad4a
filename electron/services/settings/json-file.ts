// Small JSON files the app owns next to its database (settings.json, clusters.json, the data
// folder pointer). Written atomically (the kernel's temp file + fsync + rename), so a crash or a
// concurrent reader never sees half a file.
import fs from 'node:fs';
import { writeJsonAtomic as writeJson } from '../../kernel';

/** The file's top-level object, or {} when it does not exist. A corrupt file is an error that names it. */
export function readJsonObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix or remove it.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${file} must hold a JSON object; fix or remove it.`);
  return value as Record<string, unknown>;
}

/** Written with mode 0600: these files may name hosts and paths of the user. */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeJson(file, value, { mode: 0o600 });
}
