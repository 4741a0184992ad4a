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
import { findPythons, makeBootstrapWheelhouse, makeSdist } from '../../helpers/local-packages';

const found = findPythons();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fresh-venv-'));
const wheelhouse = path.join(work, 'wheels');
let sdist = '';
// Offline: only the local wheel set and the sdist; the pip cache is bypassed so nothing leaks in.
const offline = ['--no-index', '--find-links', wheelhouse, '--no-cache-dir'];

beforeAll(() => {
  sdist = makeSdist(work);
  makeBootstrapWheelhouse(wheelhouse);
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
      const r = spawnSync(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', ...offline, '--no-build-isolation', sdist], {
        encoding: 'utf8',
      });
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
      const check = spawnSync(venvPython, ['-c', 'import tinypkg, setuptools, wheel, pip; print(tinypkg.VALUE, pip.__version__)'], {
        encoding: 'utf8',
      });
      expect(check.stdout.trim()).toBe('42 26.3');
      expect(fs.readFileSync(path.join(dataDir, 'engine-venv', '.offload-studio-complete'), 'utf8')).toMatch(/bootstrap=\d+/);
    }, 300_000);
  }

  it('an index pip cannot reach fails with a named message and leaves no half-built environment', async () => {
    const dataDir = path.join(work, 'data-offline');
    const env = { ...process.env, PIP_FIND_LINKS: '', PIP_RETRIES: '0', PIP_DEFAULT_TIMEOUT: '3', PIP_NO_CACHE_DIR: '1' };
    const r = await startInstall({
      dataDir,
      basePython: found[0].path,
      requirements: ['six==1.17.0'],
      pipArgs: ['--index-url', 'http://127.0.0.1:9/simple'],
      env,
    }).result;
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(
      /pip could not reach the package index \(http:\/\/127\.0\.0\.1:9\/simple\).*PIP_INDEX_URL.*previous environment is unchanged/,
    );
    expect(fs.existsSync(path.join(dataDir, 'engine-venv.new'))).toBe(false);
  }, 120_000);
});
