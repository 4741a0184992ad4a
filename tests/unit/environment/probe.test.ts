// Interpreter discovery and probing on this machine's real interpreters.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InterpreterProbeSchema } from '../../../electron/contract';
import { findCandidates, missingPieces, probeInterpreter, selectedInterpreter } from '../../../electron/services/environment';
import { engineVenvs, selectInterpreter, venvPython } from '../../../electron/services/environment';
import { parseProbeOutput, parseVersionOutput } from '../../../electron/services/environment/probe';
import { PipProgress, parsePipLine } from '../../../electron/services/environment/pip-progress';
import { parseRequirements } from '../../../electron/services/environment/requirements';

// the engine venv scripts/setup-engine-venv.sh made, found as the app finds it (not a fixed folder name)
const [ENGINE_VENV_DIR] = engineVenvs();
const ENGINE_VENV = ENGINE_VENV_DIR ? venvPython(ENGINE_VENV_DIR) : '';
const hasEngineVenv = !!ENGINE_VENV_DIR && fs.existsSync(ENGINE_VENV);
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'offload-env-'));

describe('candidates', () => {
  it('finds app venvs, conda envs.txt, miniconda envs, pyenv versions, VIRTUAL_ENV and PATH in a fake home', async () => {
    const home = tmp();
    const dataDir = path.join(home, 'data');
    const real = process.execPath; // any executable stands in for python: discovery only checks files
    const mk = (prefix: string) => {
      fs.mkdirSync(path.join(prefix, 'bin'), { recursive: true });
      fs.symlinkSync(real, path.join(prefix, 'bin', 'python3'));
      return path.join(prefix, 'bin', 'python3');
    };
    const app = mk(path.join(dataDir, 'engine-venv'));
    const cache = mk(path.join(home, '.cache', 'offload-studio', 'engine-venv-abc123'));
    const listed = mk(path.join(home, 'elsewhere', 'myenv'));
    fs.mkdirSync(path.join(home, '.conda'));
    fs.writeFileSync(path.join(home, '.conda', 'environments.txt'), `${path.join(home, 'elsewhere', 'myenv')}\n`);
    const mini = mk(path.join(home, 'miniconda3', 'envs', 'ds'));
    const pyenv = mk(path.join(home, '.pyenv', 'versions', '3.11.7'));
    const venv = mk(path.join(home, 'proj', '.venv'));
    const found = await findCandidates({
      dataDir,
      home,
      env: { PATH: path.join(home, 'proj', '.venv', 'bin'), VIRTUAL_ENV: path.join(home, 'proj', '.venv') },
      selected: null,
    });
    const by = (p: string) => found.find((c) => c.path === p)?.sources;
    expect(by(app)).toEqual(['app-venv']);
    expect(by(cache)).toEqual(['app-cache-venv']);
    expect(by(listed)).toEqual(['conda']);
    expect(by(mini)).toEqual(['conda']);
    expect(by(pyenv)).toEqual(['pyenv']);
    // Found as VIRTUAL_ENV and on PATH: one candidate, both sources. Venvs are not merged with each other
    // even though every bin/python3 here is a symlink to the same program.
    expect(by(venv)?.sort()).toEqual(['path', 'virtualenv']);
  });
  it('finds the real interpreters of this machine (pyenv, PATH, the test engine venv)', async () => {
    const found = await findCandidates({ dataDir: tmp() });
    expect(found.some((c) => c.sources.includes('path'))).toBe(true);
    if (hasEngineVenv)
      expect(found.some((c) => c.path.startsWith(`${ENGINE_VENV_DIR}/`) && c.sources.includes('app-cache-venv'))).toBe(true);
  });
});

describe('probe', () => {
  it('reports a missing file without running anything', async () => {
    const p = await probeInterpreter('/nonexistent/bin/python3');
    expect(p).toMatchObject({ ok: false, error: '/nonexistent/bin/python3 does not exist', ready: false });
    expect(() => InterpreterProbeSchema.parse(p)).not.toThrow();
  });
  it('a plain Python: runs, and says torch and deepspeed are missing with pip commands', async () => {
    const p = await probeInterpreter('/root/.pyenv/versions/3.12.1/bin/python3', { requirements: ['torch==2.11.0', 'deepspeed==0.19.8'] });
    expect(p.ok).toBe(true);
    expect(p.pythonVersion).toBe('3.12.1');
    expect(p.torch).toBeNull();
    const fixes = Object.fromEntries(p.missing.map((m) => [m.id, m.fix]));
    expect(fixes.torch).toBe('/root/.pyenv/versions/3.12.1/bin/python3 -m pip install torch==2.11.0');
    expect(fixes.deepspeed).toContain('-m pip install --no-build-isolation deepspeed==0.19.8');
    expect(p.ready).toBe(false);
  }, 30_000);
  it('a too-old Python is refused with a clear reason', async () => {
    const py36 = '/root/.pyenv/versions/3.6.15/bin/python';
    if (!fs.existsSync(py36)) return;
    const p = await probeInterpreter(py36);
    expect(p.ok).toBe(false);
    expect(p.error).toMatch(/3\.6\.15 is older than 3\.9/);
    expect(p.missing[0].id).toBe('python-version');
  });
  it.skipIf(!hasEngineVenv)(
    'the engine venv: torch, deepspeed, CPU Adam compatible, async_io missing libaio',
    async () => {
      const p = await probeInterpreter(ENGINE_VENV);
      expect(() => InterpreterProbeSchema.parse(p)).not.toThrow();
      expect(p.ok).toBe(true);
      expect(p.torch?.version).toMatch(/^2\.11\.0/);
      expect(p.deepspeed?.version).toBe('0.19.8');
      expect(p.deepspeed?.cpuAdam.compatible).toBe(true);
      expect(p.build.cxx).toBeTruthy();
      expect(p.ready).toBe(true);
      if (!p.build.libaio) expect(p.missing.find((m) => m.id === 'async-io')?.fix).toBe('sudo apt-get install libaio-dev');
    },
    120_000,
  );
});

describe('pure helpers', () => {
  it('version and probe output', () => {
    expect(parseVersionOutput('Python 3.11.7\n')).toBe('3.11.7');
    expect(parseProbeOutput('noise\n{"pythonVersion": "3.11.7"}\n')).toEqual({ pythonVersion: '3.11.7' });
  });
  it('missing pieces: no compiler, no ninja', () => {
    const m = missingPieces(
      '/x/python',
      {
        pythonVersion: '3.11.7',
        isVenv: true,
        torch: { version: '2.11.0', cuda: '13.0', cudaAvailable: true, devices: [], error: null },
        deepspeed: {
          version: '0.19.8',
          error: null,
          accelerator: 'cuda',
          cpuAdam: { compatible: false, prebuilt: false, error: null },
          asyncIo: { compatible: true, prebuilt: false, error: null },
        },
        build: { ninja: null, cxx: null, libaio: 'libaio.so.1' },
      },
      ['torch==2.11.0', 'deepspeed==0.19.8'],
      'linux',
    );
    expect(m.map((x) => x.id)).toEqual(['cxx', 'ninja']);
    expect(m[0].fix).toMatch(/build-essential/);
    expect(m[1].fix).toBe('/x/python -m pip install ninja');
  });
  it('requirements file and pip lines', () => {
    expect(parseRequirements('# c\ntorch==2.11.0\n\ndeepspeed==0.19.8  # pinned\n')).toEqual(['torch==2.11.0', 'deepspeed==0.19.8']);
    expect(parsePipLine('Collecting six')).toEqual({ phase: 'collecting', message: 'Collecting six' });
    expect(parsePipLine('  Downloading six-1.17.0-py2.py3-none-any.whl (11 kB)')).toEqual({
      phase: 'downloading',
      message: 'Downloading six-1.17.0-py2.py3-none-any.whl (11 kB)',
    });
    expect(parsePipLine('Installing collected packages: six')?.phase).toBe('installing');
    const t = new PipProgress([0, 1]);
    const a = t.fraction({ phase: 'collecting', message: '' }) as number;
    const b = t.fraction({ phase: 'downloading', message: '' }) as number;
    const c = t.fraction({ phase: 'installing', message: 'Installed six' }) as number;
    expect(a).toBeLessThanOrEqual(b);
    expect(c).toBe(1);
  });
});

describe('selection in settings.json', () => {
  it('remembers the interpreter and keeps the other settings', async () => {
    const dataDir = tmp();
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ theme: 'dark', defaultSteps: 7 }));
    expect(await selectedInterpreter(dataDir)).toBeNull();
    const r = await selectInterpreter(dataDir, '/root/.pyenv/versions/3.12.1/bin/python3');
    expect(r.selected).toBe('/root/.pyenv/versions/3.12.1/bin/python3');
    expect(await selectedInterpreter(dataDir)).toBe('/root/.pyenv/versions/3.12.1/bin/python3');
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8'))).toMatchObject({ theme: 'dark', defaultSteps: 7 });
    await expect(selectInterpreter(dataDir, '/nonexistent/python')).rejects.toThrow(/does not exist/);
    await selectInterpreter(dataDir, null);
    expect(await selectedInterpreter(dataDir)).toBeNull();
  }, 30_000);
});
