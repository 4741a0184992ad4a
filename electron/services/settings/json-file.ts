// Small JSON files the app owns next to its database (settings.json, clusters.json, the data
// folder pointer). Written atomically — a temp file in the same folder, fsync, rename — so a
// crash or a concurrent reader never sees half a file.
import fs from 'node:fs';
import path from 'node:path';

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

export function writeJsonAtomic(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(value, null, 2) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
