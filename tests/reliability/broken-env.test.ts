// Broken engine environments, made for real: a venv-like interpreter whose torch fails to import
// (a missing CUDA library), one whose torch is a CUDA build that sees no usable GPU ("wrong
// CUDA"), and one without DeepSpeed. The probe names each state with a fix, and a run started
// with the broken interpreter ends failed with a named class instead of hanging or vanishing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../electron/services/backend';

const system = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const backends: Backend[] = [];
afterAll(async () => {
  for (const b of backends) await b.close();
});

/** An interpreter (a shell wrapper around the system Python) that sees `site` first. */
function fakeEnv(torchInit: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'os-broken-env-'));
  const site = path.join(root, 'site');
  fs.mkdirSync(path.join(site, 'torch'), { recursive: true });
  fs.writeFileSync(path.join(site, 'torch', '__init__.py'), torchInit);
  // Installed metadata, so the probe knows torch is there (and fails on import, not on lookup).
  fs.mkdirSync(path.join(site, 'torch-2.11.0.dist-info'));
  fs.writeFileSync(path.join(site, 'torch-2.11.0.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n');
  fs.writeFileSync(path.join(site, 'torch-2.11.0.dist-info', 'RECORD'), '');
  fs.mkdirSync(path.join(root, 'bin'));
  const python = path.join(root, 'bin', 'python');
  fs.writeFileSync(python, `#!/bin/sh\nPYTHONPATH='${site}' exec '${system}' "$@"\n`, { mode: 0o755 });
  return python;
}

function backend(): Backend {
  const b = createBackend({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'os-broken-data-')), transport: 'cli' });
  backends.push(b);
  return b;
}

describe('broken engine environments', () => {
  it('torch that fails to import is named, with a reinstall fix; DeepSpeed missing is named too', async () => {
    const python = fakeEnv('raise ImportError("libcudart.so.13: cannot open shared object file: No such file or directory")\n');
    const probe = await backend().invoke('environment/probe', { path: python });
    expect(probe.ok).toBe(true);
    expect(probe.ready).toBe(false);
    const broken = probe.missing.find((m) => m.id === 'torch-broken');
    expect(broken?.what).toMatch(/does not import: .*libcudart\.so\.13/);
    expect(broken?.fix).toMatch(/--force-reinstall torch==2\.11\.0/);
    const ds = probe.missing.find((m) => m.id === 'deepspeed');
    expect(ds?.what).toMatch(/DeepSpeed is not installed/);
    expect(ds?.fix).toMatch(/deepspeed==0\.19\.8/);
  }, 60_000);

  it('a CUDA build of torch that sees no usable GPU ("wrong CUDA") says only CPU runs are possible and how to fix it', async () => {
    const python = fakeEnv(
      [
        '__version__ = "2.11.0+cu130"',
        'class version: cuda = "13.0"',
        'class cuda:',
        '    @staticmethod',
        '    def is_available(): return False  # driver too old for CUDA 13.0',
        '    @staticmethod',
        '    def device_count(): return 0',
        '',
      ].join('\n'),
    );
    const probe = await backend().invoke('environment/probe', { path: python });
    expect(probe.torch).toMatchObject({ cuda: '13.0', cudaAvailable: false });
    const noGpu = probe.missing.find((m) => /sees no GPU/.test(m.what));
    expect(noGpu?.what).toMatch(/CUDA 13\.0 build but sees no GPU/);
    expect(noGpu?.fix).toMatch(/NVIDIA driver/);
  }, 60_000);

  it('a run with the broken interpreter ends failed with a named class and a fix, and is stored', async () => {
    const python = fakeEnv('raise ImportError("libcudart.so.13: cannot open shared object file: No such file or directory")\n');
    const b = backend();
    const statuses: { status: string; errorClass: string | null; fix: string | null; sweepDone: boolean }[] = [];
    const done = new Promise<void>((resolve) =>
      b.on('runs/status', (e) => {
        statuses.push(e);
        if (e.sweepDone) resolve();
      }),
    );
    const { runIds } = await b.invoke('runs/start', {
      workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1 },
      strategies: ['zero3-offload'],
      steps: 2,
      warmup: 1,
      python,
    });
    await done;
    const final = statuses.find((s) => s.sweepDone)!;
    expect(final.status).toBe('failed');
    expect(['missing_package', 'crashed', 'internal']).toContain(final.errorClass);
    expect(final.fix).toBeTruthy();
    const { runs } = await b.invoke('runs/list', {});
    expect(runs.find((r) => r.id === runIds[0])?.status).toBe('failed');
  }, 120_000);
});
