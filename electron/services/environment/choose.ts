// The one interpreter chooser of a run. Order: an explicit choice (--python / the request / the one
// selected in Setup, which the backend passes), then $OFFLOAD_STUDIO_PYTHON, then the engine venv the
// setup script was told to build ($OFFLOAD_STUDIO_ENGINE_VENV: it reads the same variable), then the newest
// engine venv it made by default ($XDG_CACHE_HOME or $HOME/.cache, offload-studio/engine-venv-*), then
// python3 on PATH. The folders and "the python inside a prefix" are candidates.ts's, the same ones
// Setup lists, so the two never disagree on where an engine venv is or which file in it runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineCacheRoot, pythonIn } from './candidates';

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

/** The interpreter of a venv: the first of pythonIn(venv) that can run (else its usual name). */
export function venvPython(venv: string): string {
  const files = pythonIn(venv);
  return files.find(isExecutableFile) ?? files[files.length - 1];
}

/** Engine venvs under the cache root, newest first. */
export function engineVenvs(home = os.homedir(), env: NodeJS.ProcessEnv = process.env): string[] {
  const root = engineCacheRoot(home, env);
  let names: string[];
  try {
    names = fs.readdirSync(root).filter((n) => n.startsWith('engine-venv'));
  } catch {
    return [];
  }
  return names
    .map((n) => path.join(root, n))
    .filter((dir) => pythonIn(dir).some(isExecutableFile))
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
  const named = env.OFFLOAD_STUDIO_ENGINE_VENV;
  if (named && pythonIn(named).some(isExecutableFile)) return { python: venvPython(named), source: 'venv' };
  const [newest] = engineVenvs(home, env);
  if (newest) return { python: venvPython(newest), source: 'venv' };
  return { python: process.platform === 'win32' ? 'python' : 'python3', source: 'path' };
}
