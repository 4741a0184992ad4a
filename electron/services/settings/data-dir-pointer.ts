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

/** System folders a data folder may never be, or be inside (the app writes its database there). */
const SYSTEM_FOLDERS = [
  '/proc',
  '/sys',
  '/dev',
  '/etc',
  '/bin',
  '/sbin',
  '/usr',
  '/boot',
  '/lib',
  '/lib32',
  '/lib64',
  '/run',
  '/var/run',
  '/var/lib',
  '/var/log',
  '/snap',
];

/**
 * The absolute folder `target` names, or an Error saying why it cannot be the data folder:
 * relative, the root or a system folder (or inside one), an existing non-folder, or a folder
 * whose parent does not exist (a typo must not create a tree of folders).
 */
export function checkDataDirTarget(target: string): string {
  if (!path.isAbsolute(target)) throw new Error(`'${target}' is not an absolute path; give the full path of the folder.`);
  if (target.includes('\0')) throw new Error('the path contains a NUL character.');
  const resolved = path.resolve(target);
  if (resolved === path.parse(resolved).root)
    throw new Error(`${resolved} is the root of the file system; choose a folder of your own (e.g. under your home folder).`);
  const system = SYSTEM_FOLDERS.find((dir) => resolved === dir || resolved.startsWith(dir + '/'));
  if (system && process.platform !== 'win32')
    throw new Error(
      `${resolved} is ${resolved === system ? 'a system folder' : `inside the system folder ${system}`}; choose a folder of your own (e.g. under your home folder).`,
    );
  const stat = fs.statSync(resolved, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw new Error(`${resolved} exists and is not a folder.`);
  if (!stat && !fs.statSync(path.dirname(resolved), { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`the folder ${path.dirname(resolved)} does not exist; create it first, or choose a folder whose parent exists.`);
  return resolved;
}

/** Records `target` as the data folder for the next start; null (or the default itself) removes the pointer. */
export function writeDataDirPointer(defaultDir: string, target: string | null): void {
  const file = path.join(defaultDir, POINTER_FILE);
  if (target === null || path.resolve(target) === path.resolve(defaultDir)) {
    fs.rmSync(file, { force: true });
    return;
  }
  const resolved = checkDataDirTarget(target);
  // Only the last level is made (its parent must exist), and only now the target passed the checks.
  if (!fs.existsSync(resolved)) fs.mkdirSync(resolved, { mode: 0o700 });
  fs.accessSync(resolved, fs.constants.W_OK);
  writeJsonAtomic(file, { dataDir: resolved, writtenAt: new Date().toISOString() });
}
