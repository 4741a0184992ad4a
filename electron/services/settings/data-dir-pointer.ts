// The data folder cannot be recorded inside itself, so a move is recorded in a small pointer
// file in the default (per-user) data folder. Whatever starts the backend resolves the folder
// through `followDataDirPointer` once at start-up: a change therefore needs a restart.
import fs from 'node:fs';
import path from 'node:path';
import { readJsonObject, writeJsonAtomic } from './json-file';

export const POINTER_FILE = 'data-folder.json';

/** The folder the pointer in `defaultDir` names, or null when there is none (or it is unusable). */
export function readDataDirPointer(defaultDir: string): string | null {
  let raw: Record<string, unknown>;
  try {
    raw = readJsonObject(path.join(defaultDir, POINTER_FILE));
  } catch {
    return null; // a broken pointer must never stop the app from starting: use the default
  }
  const target = raw.dataDir;
  return typeof target === 'string' && path.isAbsolute(target) ? target : null;
}

/** The folder to use when the app starts from `defaultDir`: the pointer's target, or the default itself. One hop only. */
export function followDataDirPointer(defaultDir: string): string {
  return readDataDirPointer(defaultDir) ?? defaultDir;
}

/** Records `target` as the data folder for the next start; null (or the default itself) removes the pointer. */
export function writeDataDirPointer(defaultDir: string, target: string | null): void {
  const file = path.join(defaultDir, POINTER_FILE);
  if (target === null || path.resolve(target) === path.resolve(defaultDir)) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(target, { recursive: true }); // fail now, not at the next start, if it cannot be created
  fs.accessSync(target, fs.constants.W_OK);
  writeJsonAtomic(file, { dataDir: path.resolve(target), writtenAt: new Date().toISOString() });
}
