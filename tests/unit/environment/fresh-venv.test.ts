// The engine environment from nothing, for every Python 3.10–3.13 on this machine: a fresh venv
// made by the app's own install code, then a small local sdist (setup.py only, like DeepSpeed on
// PyPI) installed with --no-build-isolation from a local wheel set. Without the bootstrap step
// this fails exactly as DeepSpeed did (3.11's venv: "invalid command 'bdist_wheel'"; 3.12+: no
// setuptools at all) — the first test proves the control fails, so the second cannot pass by luck.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startInstall } from '../../../electron/services/environment';

const engineDir = path.resolve('resources/engine');

/** Distinct Python 3.10–3.13 interpreters: pyenv's versions and those on PATH. */
function pythons(): { version: string; path: string }[] {
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

/** A setup.py-only sdist, the shape DeepSpeed ships: its build needs setuptools and wheel from the venv. */
function makeSdist(dir: string): string {
  const src = path.join(dir, 'tinypkg-0.1');
  fs.mkdirSync(path.join(src, 'tinypkg'), { recursive: true });
  fs.writeFileSync(path.join(src, 'setup.py'), "from setuptools import setup\nsetup(name='tinypkg', version='0.1', packages=['tinypkg'])\n");
  fs.writeFileSync(path.join(src, 'tinypkg', '__init__.py'), "VALUE = 42\n");
  fs.writeFileSync(path.join(src, 'PKG-INFO'), 'Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n');
  const tarball = path.join(dir, 'tinypkg-0.1.tar.gz');
  const r = spawnSync('tar', ['-czf', tarball, '-C', dir, 'tinypkg-0.1']);
  expect(r.status).toBe(0);
  return tarball;
}

const found = pythons();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fresh-venv-'));
const wheelhouse = path.join(work, 'wheels');
let sdist = '';
// Offline: only the local wheel set and the sdist; the pip cache is bypassed so nothing leaks in.
const offline = ['--no-index', '--find-links', wheelhouse, '--no-cache-dir'];

beforeAll(() => {
  sdist = makeSdist(work);
  // The bootstrap pins as wheels (pure Python), fetched once: the one networked step (pip's cache may serve it).
  const r = spawnSync('python3', ['-m', 'pip', 'download', '-q', '--only-binary=:all:', '-d', wheelhouse, '-r', path.join(engineDir, 'bootstrap-requirements.txt')], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}, 300_000);

describe('a fresh engine environment from nothing', () => {
  it('finds at least one Python 3.10–3.13 here', () => {
    expect(found.length).toBeGreaterThan(0);
  });

  // 3.10's bundled pip 23.0 still falls back to `setup.py install`; from 3.11 on the plain venv fails.
  for (const { version, path: python } of found.filter((p) => p.version >= '3.11')) {
    it(`control, Python ${version}: without the bootstrap a plain venv cannot build the sdist without isolation`, () => {
      const venv = path.join(work, `control-${version}`);
      expect(spawnSync(python, ['-m', 'venv', venv]).status).toBe(0);
      const r = spawnSync(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', ...offline, '--no-build-isolation', sdist], { encoding: 'utf8' });
      expect(r.status).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/bdist_wheel|setuptools|build_meta|BackendUnavailable/);
    }, 300_000);
  }

  for (const { version, path: python } of found) {
    it(`Python ${version}: the app's install bootstraps the venv and builds the sdist without isolation`, async () => {
      const dataDir = path.join(work, `data-${version}`);
      const r = await startInstall({ dataDir, basePython: python, requirements: [sdist], pipArgs: offline }).result;
      expect(r.ok, `${r.message}\n${r.log.join('\n')}`).toBe(true);
      const venvPython = r.python!;
      const check = spawnSync(venvPython, ['-c', 'import tinypkg, setuptools, wheel, pip; print(tinypkg.VALUE, pip.__version__)'], { encoding: 'utf8' });
      expect(check.stdout.trim()).toBe('42 26.3');
      expect(fs.readFileSync(path.join(dataDir, 'engine-venv', '.offload-studio-complete'), 'utf8')).toMatch(/bootstrap=\d+/);
    }, 300_000);
  }

  it('an index pip cannot reach fails with a named message and leaves no half-built environment', async () => {
    const dataDir = path.join(work, 'data-offline');
    const env = { ...process.env, PIP_FIND_LINKS: '', PIP_RETRIES: '0', PIP_DEFAULT_TIMEOUT: '3', PIP_NO_CACHE_DIR: '1' };
    const r = await startInstall({ dataDir, basePython: found[0].path, requirements: ['six==1.17.0'], pipArgs: ['--index-url', 'http://127.0.0.1:9/simple'], env }).result;
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/pip could not reach the package index \(http:\/\/127\.0\.0\.1:9\/simple\).*PIP_INDEX_URL.*previous environment is unchanged/);
    expect(fs.existsSync(path.join(dataDir, 'engine-venv.new'))).toBe(false);
  }, 120_000);
});
