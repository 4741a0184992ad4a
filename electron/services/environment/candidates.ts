// Where Python interpreters live: the selected one, the app-managed venvs, the active
// virtualenv/conda env, conda env lists and the usual install folders, pyenv versions, and
// python3/python on PATH. Only file checks here; probing is probe.ts's job.
import { constants } from 'node:fs';
import { access, readdir, readFile, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CandidateSource } from '../../contract';

export interface CandidateOptions {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  platform?: NodeJS.Platform;
  selected?: string | null;
  extraPaths?: string[];
}

export interface FoundCandidate {
  path: string;
  sources: CandidateSource[];
}

/** The interpreter inside an environment prefix (venv, conda env, pyenv version). */
export function pythonIn(prefix: string, platform: NodeJS.Platform = process.platform): string[] {
  return platform === 'win32'
    ? [path.join(prefix, 'Scripts', 'python.exe'), path.join(prefix, 'python.exe')]
    : [path.join(prefix, 'bin', 'python3'), path.join(prefix, 'bin', 'python')];
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function dirs(parent: string): Promise<string[]> {
  try {
    return (await readdir(parent, { withFileTypes: true }))
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => path.join(parent, d.name))
      .sort();
  } catch {
    return [];
  }
}

/** Where the setup script puts its engine venvs (engine-venv-*): $XDG_CACHE_HOME or ~/.cache, offload-studio. */
export function engineCacheRoot(home: string = os.homedir(), env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME ?? path.join(home, '.cache'), 'offload-studio');
}

/** The app-managed venv folder (installer target) for a data folder. */
export function appVenvDir(dataDir: string): string {
  return path.join(dataDir, 'engine-venv');
}

export async function findCandidates(options: CandidateOptions): Promise<FoundCandidate[]> {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const platform = options.platform ?? process.platform;
  const prefixes: [CandidateSource, string][] = [];
  const files: [CandidateSource, string][] = [];

  if (options.selected) files.push(['selected', options.selected]);
  for (const p of options.extraPaths ?? []) files.push(['user', p]);
  prefixes.push(['app-venv', appVenvDir(options.dataDir)]);
  // the setup script's venv where $OFFLOAD_STUDIO_ENGINE_VENV told it where to build (choose.ts reads it too)
  if (env.OFFLOAD_STUDIO_ENGINE_VENV) prefixes.push(['app-cache-venv', env.OFFLOAD_STUDIO_ENGINE_VENV]);
  for (const d of await dirs(engineCacheRoot(home, env)))
    if (path.basename(d).startsWith('engine-venv')) prefixes.push(['app-cache-venv', d]);
  if (env.VIRTUAL_ENV) prefixes.push(['virtualenv', env.VIRTUAL_ENV]);
  if (env.CONDA_PREFIX) prefixes.push(['conda', env.CONDA_PREFIX]);

  // conda records every env it created in ~/.conda/environments.txt (one prefix per line).
  try {
    const text = await readFile(path.join(home, '.conda', 'environments.txt'), 'utf8');
    for (const line of text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean))
      prefixes.push(['conda', line]);
  } catch {
    /* no conda */
  }
  const condaRoots = ['miniconda3', 'anaconda3', 'miniforge3', 'mambaforge', 'micromamba', '.miniconda3']
    .map((d) => path.join(home, d))
    .concat(['/opt/conda', '/opt/miniconda3', '/opt/anaconda3', '/opt/miniforge3']);
  for (const root of condaRoots) {
    prefixes.push(['conda', root]);
    for (const envDir of await dirs(path.join(root, 'envs'))) prefixes.push(['conda', envDir]);
  }
  const pyenvRoot = env.PYENV_ROOT ?? path.join(home, '.pyenv');
  for (const v of await dirs(path.join(pyenvRoot, 'versions'))) prefixes.push(['pyenv', v]);
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean))
    for (const name of platform === 'win32' ? ['python.exe', 'python3.exe'] : ['python3', 'python'])
      files.push(['path', path.join(dir, name)]);

  for (const [source, prefix] of prefixes) {
    // One interpreter per prefix: python3 and python in one bin/ are the same program.
    for (const file of pythonIn(prefix, platform))
      if (await isExecutable(file)) {
        files.push([source, file]);
        break;
      }
  }

  // Merge the same interpreter found several ways. A venv's bin/python is a symlink to its base
  // interpreter, so realpath alone would merge a venv into its base: key on folder + realpath.
  const byKey = new Map<string, FoundCandidate>();
  const order: string[] = [];
  for (const [source, file] of files) {
    const abs = path.resolve(file);
    if (!(await isExecutable(abs)) && source !== 'selected' && source !== 'user') continue;
    const real = await realpath(abs).catch(() => abs);
    const key = `${path.dirname(abs)}|${real}`;
    const existing = byKey.get(key);
    if (existing) {
      if (!existing.sources.includes(source)) existing.sources.push(source);
    } else {
      byKey.set(key, { path: abs, sources: [source] });
      order.push(key);
    }
  }
  return order.map((k) => byKey.get(k) as FoundCandidate);
}
