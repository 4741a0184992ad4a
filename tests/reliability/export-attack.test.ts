// `runs/export` / `export-runs --out` overwrote anything (a .conf, a 0755 script),
// resolved a relative path against the server's cwd, and wrote `<file>.<pid>.tmp` following a
// symlink planted there (another user's link made root's export overwrite a root-only file);
// `reports/export` bundle with overwrite deleted any existing folder recursively. Reproduced
// against a real `serve` and the real CLI; every test failed on the code before its fix.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireResult } from '../../electron/contract';
import { WsClient, repoRoot, spawnServe, tmpDir, type ServeProcess } from './helpers';

const VICTIM = 'victim: a root-only file\n';

function runsFile(id: string) {
  return {
    format: 'offload-studio/runs',
    version: 1,
    schemaVersion: 3,
    exportedAt: '2026-12-01T00:00:00.000Z',
    source: null,
    runs: [
      {
        run: {
          id,
          created_at: '2026-12-01T00:00:00.000Z',
          status: 'completed',
          model: 'tiny-llama',
          strategy: 'zero3-offload',
          engine: 'deepspeed',
          repeat_index: 0,
          tags: '[]',
          notes: '',
          tflops_per_gpu: 1.5,
          step_seconds: 0.5,
          steps: 1,
          warmup: 1,
        },
        details: null,
        snapshot: null,
        samples: {
          columns: ['step', 'warmup', 'step_seconds'],
          rows: [
            [1, 1, 0.6],
            [2, 0, 0.5],
          ],
        },
      },
    ],
  };
}

/** The real CLI from `cwd` (tsx loaded by absolute URL, so any cwd works). */
function cli(args: string[], cwd = repoRoot, timeoutMs = 45_000): Promise<{ code: number | null; out: string }> {
  const tsx = pathToFileURL(path.join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', tsx, path.join(repoRoot, 'electron', 'cli', 'main.ts'), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, out })));
  });
}

let serve: ServeProcess;
let ws: WsClient;
beforeAll(async () => {
  serve = await spawnServe(tmpDir('os-export-'));
  ws = await WsClient.connect(serve.origin, serve.token);
  await ws.value('runs/import', { content: JSON.stringify(runsFile('r-export-1')), name: 'one.runs.json' });
});
afterAll(async () => {
  ws?.close();
  await serve?.stop();
});

const refused = (r: WireResult<unknown>) => (r.ok ? null : r.error);

describe('runs/export writes only where export rules allow', () => {
  it('an existing .conf or 0755 script is never overwritten (not a .json), even with overwrite', async () => {
    const dir = tmpDir('os-export-files-');
    const conf = path.join(dir, 'sshd.conf');
    const script = path.join(dir, 'hook.sh');
    fs.writeFileSync(conf, VICTIM);
    fs.writeFileSync(script, '#!/bin/sh\necho hi\n', { mode: 0o755 });
    for (const target of [conf, script]) {
      for (const overwrite of [undefined, true]) {
        const e = refused(await ws.request('runs/export', { path: target, ...(overwrite ? { overwrite } : {}) }));
        expect(e?.code, target).toBe('bad_path');
        expect(e?.field).toBe('path');
        expect(e?.message).toMatch(/A runs file must be a \.json file/);
      }
    }
    expect(fs.readFileSync(conf, 'utf8')).toBe(VICTIM);
    expect(fs.readFileSync(script, 'utf8')).toBe('#!/bin/sh\necho hi\n');
    expect(fs.statSync(script).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(dir).sort()).toEqual(['hook.sh', 'sshd.conf']);
  });

  it('an existing .json needs overwrite: true (exists otherwise); a folder is never replaced by the file', async () => {
    const dir = tmpDir('os-export-json-');
    const existing = path.join(dir, 'runs.json');
    fs.writeFileSync(existing, '{"mine": true}\n');
    const e = refused(await ws.request('runs/export', { path: existing }));
    expect(e?.code).toBe('exists');
    expect(e?.message).toMatch(/already exists\. Choose another name, or overwrite it/);
    expect(fs.readFileSync(existing, 'utf8')).toBe('{"mine": true}\n');
    const ok = await ws.value<{ path: string; count: number }>('runs/export', { path: existing, overwrite: true });
    expect(ok).toMatchObject({ path: existing, count: 1 });
    expect(JSON.parse(fs.readFileSync(existing, 'utf8')).format).toBe('offload-studio/runs');
    fs.mkdirSync(path.join(dir, 'folder.json'));
    expect(refused(await ws.request('runs/export', { path: path.join(dir, 'folder.json'), overwrite: true }))?.code).toBe('bad_path');
    expect(fs.statSync(path.join(dir, 'folder.json')).isDirectory()).toBe(true);
  });

  it("a relative path is refused over serve (it would resolve against the server's cwd); nothing is written there", async () => {
    const name = `os-export-relative-${process.pid}-${Date.now()}.json`;
    try {
      const e = refused(await ws.request('runs/export', { path: name }));
      expect(e?.code).toBe('bad_path');
      expect(e?.message).toMatch(/must be absolute/);
      expect(fs.existsSync(path.join(repoRoot, name))).toBe(false);
    } finally {
      fs.rmSync(path.join(repoRoot, name), { force: true });
    }
  });

  it('a symlink planted at the old temp name (<file>.<pid>.tmp) is not followed; the victim is untouched and no temp is left', async () => {
    const dir = tmpDir('os-export-link-');
    const victim = path.join(tmpDir('os-export-victim-'), 'root-only');
    fs.writeFileSync(victim, VICTIM, { mode: 0o600 });
    const out = path.join(dir, 'runs.json');
    fs.symlinkSync(victim, `${out}.${serve.child.pid}.tmp`);
    const ok = await ws.value<{ path: string }>('runs/export', { path: out });
    expect(ok.path).toBe(out);
    expect(fs.readFileSync(victim, 'utf8')).toBe(VICTIM);
    expect(fs.lstatSync(out).isFile()).toBe(true);
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).runs).toHaveLength(1);
    // Only the planted link and the export: no temp file of ours left behind.
    expect(fs.readdirSync(dir).sort()).toEqual([`runs.json`, `runs.json.${serve.child.pid}.tmp`]);
  });

  it('a symlink AT the target is replaced by the file (with overwrite), never written through', async () => {
    const dir = tmpDir('os-export-link2-');
    const victim = path.join(tmpDir('os-export-victim2-'), 'victim.json');
    fs.writeFileSync(victim, VICTIM);
    const out = path.join(dir, 'runs.json');
    fs.symlinkSync(victim, out);
    expect(refused(await ws.request('runs/export', { path: out }))?.code).toBe('exists');
    await ws.value('runs/export', { path: out, overwrite: true });
    expect(fs.readFileSync(victim, 'utf8')).toBe(VICTIM);
    expect(fs.lstatSync(out).isSymbolicLink()).toBe(false);
  });

  it('the CLI resolves --out against its own cwd and refuses an existing file without --overwrite', { timeout: 120_000 }, async () => {
    const dir = tmpDir('os-export-cli-');
    const dataDir = path.join(dir, 'data');
    const input = path.join(dir, 'in.runs.json');
    fs.writeFileSync(input, JSON.stringify(runsFile('r-export-cli')));
    expect((await cli(['import-runs', input, '--data-dir', dataDir])).code).toBe(0);
    const work = tmpDir('os-export-cwd-');
    const first = await cli(['export-runs', '--out', 'out.json', '--data-dir', dataDir], work);
    expect(first.code, first.out).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(work, 'out.json'), 'utf8')).runs).toHaveLength(1);
    fs.writeFileSync(path.join(work, 'out.json'), '{"mine": true}\n');
    const again = await cli(['export-runs', '--out', 'out.json', '--data-dir', dataDir], work);
    expect(again.code).not.toBe(0);
    expect(again.out).toMatch(/already exists.*--overwrite/s);
    expect(fs.readFileSync(path.join(work, 'out.json'), 'utf8')).toBe('{"mine": true}\n');
    const forced = await cli(['export-runs', '--out', 'out.json', '--overwrite', '--data-dir', dataDir], work);
    expect(forced.code, forced.out).toBe(0);
    const conf = await cli(['export-runs', '--out', 'app.conf', '--overwrite', '--data-dir', dataDir], work);
    expect(conf.code).not.toBe(0);
    expect(fs.existsSync(path.join(work, 'app.conf'))).toBe(false);
  });
});

describe('a bundle with overwrite replaces only a previous bundle', () => {
  it('an existing folder that is not a bundle is refused and left whole; a previous bundle is replaced', { timeout: 60_000 }, async () => {
    const dir = tmpDir('os-export-bundle-');
    const precious = path.join(dir, 'home');
    fs.mkdirSync(path.join(precious, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(precious, '.ssh', 'id_ed25519'), 'key\n');
    fs.writeFileSync(path.join(precious, 'README.md'), '# my notes\n');
    const e = refused(await ws.request('reports/export', { runIds: ['r-export-1'], format: 'bundle', path: precious, overwrite: true }));
    expect(e?.code).toBe('bad_path');
    expect(e?.message).toMatch(/is not an Offload Studio reproduction bundle; it will not be replaced/);
    expect(fs.readFileSync(path.join(precious, '.ssh', 'id_ed25519'), 'utf8')).toBe('key\n');
    // A previous bundle (made by this app) is replaced with overwrite.
    const bundle = path.join(dir, 'bundle');
    await ws.value('reports/export', { runIds: ['r-export-1'], format: 'bundle', path: bundle });
    expect(refused(await ws.request('reports/export', { runIds: ['r-export-1'], format: 'bundle', path: bundle }))?.code).toBe('exists');
    await ws.value('reports/export', { runIds: ['r-export-1'], format: 'bundle', path: bundle, overwrite: true });
    expect(fs.readFileSync(path.join(bundle, 'README.md'), 'utf8')).toMatch(/^# Offload Studio reproduction bundle/);
    // A bundle someone added a file of their own to is not a bundle any more: refused, kept.
    fs.writeFileSync(path.join(bundle, 'thesis.tex'), 'mine\n');
    expect(
      refused(await ws.request('reports/export', { runIds: ['r-export-1'], format: 'bundle', path: bundle, overwrite: true }))?.code,
    ).toBe('bad_path');
    expect(fs.existsSync(path.join(bundle, 'thesis.tex'))).toBe(true);
  });
});
