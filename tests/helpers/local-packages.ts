// Small local Python package sets for install tests: a setup.py-only sdist (the shape DeepSpeed
// ships on PyPI) and the bootstrap pins as wheels, so an install runs with --no-index.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './serve';

/** Distinct Python 3.10–3.13 interpreters: those on PATH and pyenv's versions. */
export function findPythons(): { version: string; path: string }[] {
  const found = new Map<string, string>();
  const candidates = ['python3', 'python3.10', 'python3.11', 'python3.12', 'python3.13'];
  const pyenv = path.join(os.homedir(), '.pyenv', 'versions');
  if (fs.existsSync(pyenv)) for (const v of fs.readdirSync(pyenv)) candidates.push(path.join(pyenv, v, 'bin', 'python3'));
  for (const c of candidates) {
    const r = spawnSync(c, ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
    const version = r.status === 0 ? r.stdout.trim() : '';
    if (/^3\.1[0-3]$/.test(version) && !found.has(version)) found.set(version, c);
  }
  return [...found].map(([version, p]) => ({ version, path: p })).sort((a, b) => a.version.localeCompare(b.version));
}

/** A setup.py-only sdist: building it without isolation needs setuptools and wheel from the venv. */
export function makeSdist(dir: string): string {
  const src = path.join(dir, 'tinypkg-0.1');
  fs.mkdirSync(path.join(src, 'tinypkg'), { recursive: true });
  fs.writeFileSync(
    path.join(src, 'setup.py'),
    "from setuptools import setup\nsetup(name='tinypkg', version='0.1', packages=['tinypkg'])\n",
  );
  fs.writeFileSync(path.join(src, 'tinypkg', '__init__.py'), 'VALUE = 42\n');
  fs.writeFileSync(path.join(src, 'PKG-INFO'), 'Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n');
  const tarball = path.join(dir, 'tinypkg-0.1.tar.gz');
  const r = spawnSync('tar', ['-czf', tarball, '-C', dir, 'tinypkg-0.1']);
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return tarball;
}

/** resources/engine/bootstrap-requirements.txt as wheels in `dir` (the one networked step; pip's cache may serve it). */
export function makeBootstrapWheelhouse(dir: string): string {
  const r = spawnSync(
    'python3',
    [
      '-m',
      'pip',
      'download',
      '-q',
      '--only-binary=:all:',
      '-d',
      dir,
      '-r',
      path.join(repoRoot, 'resources', 'engine', 'bootstrap-requirements.txt'),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`pip download of the bootstrap pins failed: ${r.stderr}`);
  return dir;
}
