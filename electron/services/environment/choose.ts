// Which Python runs the engine. Order: an explicit choice (--python / the request), then
// $OFFLOAD_STUDIO_PYTHON, then the newest engine venv the setup script made
// ($HOME/.cache/offload-studio/engine-venv-*), then python3 on PATH.
// (The environment service will own the user's selection; until it exports one, this is it.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface InterpreterChoice {
  python: string;
  source: 'explicit' | 'env' | 'venv' | 'path';
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function venvPython(venv: string): string {
  return process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

/** Engine venvs under $HOME/.cache/offload-studio, newest first. */
export function engineVenvs(home = os.homedir()): string[] {
  const root = path.join(home, '.cache', 'offload-studio');
  let names: string[];
  try {
    names = fs.readdirSync(root).filter((n) => n.startsWith('engine-venv-'));
  } catch {
    return [];
  }
  return names
    .map((n) => path.join(root, n))
    .filter((dir) => isExecutableFile(venvPython(dir)))
    .map((dir) => ({ dir, mtime: fs.statSync(dir).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)
    .map((v) => v.dir);
}

export function chooseInterpreter(explicit?: string | null, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): InterpreterChoice {
  if (explicit) {
    const resolved = path.resolve(explicit);
    if (!isExecutableFile(resolved)) throw new Error(`The Python interpreter ${resolved} does not exist or is not executable.`);
    return { python: resolved, source: 'explicit' };
  }
  const fromEnv = env.OFFLOAD_STUDIO_PYTHON;
  if (fromEnv && isExecutableFile(fromEnv)) return { python: fromEnv, source: 'env' };
  const [newest] = engineVenvs(home);
  if (newest) return { python: venvPython(newest), source: 'venv' };
  return { python: process.platform === 'win32' ? 'python' : 'python3', source: 'path' };
}
