// Issue 20.12 (smaller items), against real processes: settings/update {dataDir} accepted /etc,
// /proc and a missing tree and created them at once; `--token` accepted one character and stayed
// readable in /proc/<pid>/cmdline; a runner's error text with ESC/CR/U+202E reached the terminal
// raw through the CLI. Every test failed on the code before its fix.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, repoRoot, spawnServe, tmpDir, type ServeProcess } from './helpers';

const HOSTILE_PYTHON = path.join(import.meta.dirname, 'fixtures', 'hostile-python');

function node(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (d) => ((out += d), (stdout += d)));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, out, stdout })));
  });
}

describe("issue 20.12: settings/update {dataDir} takes only a folder of the user's", () => {
  let serve: ServeProcess;
  let ws: WsClient;
  let base: string;
  beforeAll(async () => {
    base = tmpDir('os-small-base-');
    serve = await spawnServe(tmpDir('os-small-'), { OFFLOAD_STUDIO_DATA_DIR: base });
    ws = await WsClient.connect(serve.origin, serve.token);
  });
  afterAll(async () => {
    ws?.close();
    await serve?.stop();
  });

  it.each([
    ['/etc', /\/etc is a system folder/],
    ['/proc/self/cwd', /inside the system folder \/proc/],
    ['/usr/local/offload', /inside the system folder \/usr/],
    ['/tmp/../etc/offload', /\/etc\/offload is inside the system folder \/etc/],
    ['/', /root of the file system/],
    ['relative/folder', /absolute/],
  ])('%s is refused naming dataDir; nothing is created, no pointer written', async (dir, why) => {
    const r = await ws.request('settings/update', { dataDir: dir });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.field).toBe('dataDir');
      expect(r.error.message).toMatch(why);
    }
    expect(fs.existsSync('/etc/offload')).toBe(false);
    expect(fs.existsSync('/usr/local/offload')).toBe(false);
    expect(fs.existsSync(path.join(base, 'data-folder.json'))).toBe(false);
  });

  it('a folder whose parent is missing is refused (no tree of folders made); one whose parent exists is made and recorded', async () => {
    const root = tmpDir('os-small-target-');
    const deep = path.join(root, 'typo', 'a', 'b');
    const r = await ws.request('settings/update', { dataDir: deep });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/the folder .*typo\/a does not exist; create it first/);
    expect(fs.existsSync(path.join(root, 'typo'))).toBe(false);
    const good = path.join(root, 'studio-data');
    await ws.value('settings/update', { dataDir: good });
    expect(fs.statSync(good).isDirectory()).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(base, 'data-folder.json'), 'utf8')).dataDir).toBe(good);
    await ws.value('settings/update', { dataDir: null });
  });
});

describe('issue 20.12: the session token', () => {
  it('--token of one character (or any under 32) is refused with the way out', { timeout: 60_000 }, async () => {
    for (const [args, env] of [
      [['--token', 'x'], {}],
      [['--token', 'a'.repeat(31)], {}],
      [[], { OFFLOAD_STUDIO_TOKEN: 'short' }],
    ] as [string[], NodeJS.ProcessEnv][]) {
      const r = await node(['electron/server/cli-entry.ts', '--port', '0', '--data-dir', tmpDir('os-small-tok-'), ...args], env, 30_000);
      expect(r.code, r.out).not.toBe(0);
      expect(r.out).toMatch(/must be at least 32 characters .*openssl rand -hex 32/s);
    }
  });

  it(
    'a long --token works but is gone from /proc/<pid>/cmdline; OFFLOAD_STUDIO_TOKEN works without showing anywhere',
    { timeout: 60_000 },
    async () => {
      const token = 'T0ken-' + 'k'.repeat(40);
      const viaFlag = await spawnServe(tmpDir('os-small-tok2-'), {}, ['--token', token]);
      try {
        expect(viaFlag.token).toBe(token);
        expect(fs.readFileSync(`/proc/${viaFlag.child.pid}/cmdline`, 'utf8')).not.toContain(token);
        expect(viaFlag.output()).toMatch(
          /--token is visible to other users .*`npm run serve` and its `sh -c` keep theirs.*Use --token-file FILE \(chmod 600\) or the OFFLOAD_STUDIO_TOKEN environment variable/s,
        );
      } finally {
        await viaFlag.stop();
      }
      const viaEnv = await spawnServe(tmpDir('os-small-tok3-'), { OFFLOAD_STUDIO_TOKEN: token });
      try {
        expect(viaEnv.token).toBe(token);
        expect(fs.readFileSync(`/proc/${viaEnv.child.pid}/cmdline`, 'utf8')).not.toContain(token);
        const c = await WsClient.connect(viaEnv.origin, token);
        expect((await c.request('app/info', {})).ok).toBe(true);
        c.close();
      } finally {
        await viaEnv.stop();
      }
    },
  );
});

describe('issue 28.5: a token nobody else can read', () => {
  it(
    '--token-file FILE (mode 600) serves with that token, shown in no command line; a file others can read, an empty one or a folder is refused',
    { timeout: 90_000 },
    async () => {
      const dir = tmpDir('os-small-tokfile-');
      const token = 'F1le-' + 't'.repeat(40);
      const file = path.join(dir, 'token');
      fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
      const serve = await spawnServe(tmpDir('os-small-tok4-'), {}, ['--token-file', file]);
      try {
        expect(serve.token).toBe(token);
        expect(fs.readFileSync(`/proc/${serve.child.pid}/cmdline`, 'utf8')).not.toContain(token);
        expect(serve.output()).not.toMatch(/warning: --token/);
        const c = await WsClient.connect(serve.origin, token);
        expect((await c.request('app/info', {})).ok).toBe(true);
        c.close();
      } finally {
        await serve.stop();
      }
      const open = path.join(dir, 'open');
      fs.writeFileSync(open, token);
      fs.chmodSync(open, 0o644);
      const empty = path.join(dir, 'empty');
      fs.writeFileSync(empty, '', { mode: 0o600 });
      for (const [f, why] of [
        [open, /readable by other users \(mode 644\): chmod 600/],
        [empty, /empty/],
        [dir, /not a regular file/],
      ] as [string, RegExp][]) {
        const r = await node(
          ['electron/server/cli-entry.ts', '--port', '0', '--data-dir', tmpDir('os-small-tok5-'), '--token-file', f],
          {},
          30_000,
        );
        expect(r.code, r.out).not.toBe(0);
        expect(r.out).toMatch(why);
        expect(r.out).not.toContain(token);
      }
    },
  );
});

describe('issue 20.12: runner text never drives the terminal', () => {
  it(
    'an error line with ESC sequences, CR and U+202E is printed by the CLI with those characters escaped',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-small-term-');
      for (const json of [false, true]) {
        const r = await node(
          [
            'electron/cli/main.ts',
            'run',
            '--model',
            'tiny-llama',
            '--strategy',
            'zero3-offload',
            '--seq',
            '32',
            '--steps',
            '2',
            '--warmup',
            '1',
            '--python',
            HOSTILE_PYTHON,
            '--data-dir',
            dataDir,
            ...(json ? ['--json'] : []),
          ],
          { HOSTILE_MODE: 'evil-error' },
          90_000,
        );
        expect(r.out, r.out).toMatch(/boom/);
        expect(r.out).not.toMatch(/[\u001b\r\u202e\u009b\u0007]/);
        expect(r.out).toMatch(/\\u001b\[2J/);
        expect(r.out).toMatch(/\\u202e/);
      }
    },
  );
});

describe('issue 20.12: a Hugging Face config too large to count exactly names its field', () => {
  it.each([
    ['hidden_size', { hidden_size: 2 ** 54 }, /field 'hidden_size' is too large/],
    ['vocab_size', { vocab_size: 2 ** 53 + 2 }, /field 'vocab_size' is too large/],
    ['intermediate_size', { intermediate_size: 1e300 }, /field 'intermediate_size' is too large/],
    [
      'num_hidden_layers',
      { num_hidden_layers: 2 ** 40, hidden_size: 2 ** 20, num_attention_heads: 1 },
      /field 'num_hidden_layers' makes the model too large to plan \(.* parameters, more than 2\^53/,
    ],
  ])(
    '%s over 2^53 (or a model over 2^53 parameters) → invalid_hf_config naming it, not bad_response',
    { timeout: 60_000 },
    async (field, change, message) => {
      const serve = await spawnServe(tmpDir('os-small-hf-'));
      const c = await WsClient.connect(serve.origin, serve.token);
      try {
        const base = {
          model_type: 'llama',
          hidden_size: 4096,
          num_attention_heads: 32,
          num_hidden_layers: 32,
          intermediate_size: 11008,
          vocab_size: 32000,
        };
        const r = await c.request('plan/import-hf-config', { text: JSON.stringify({ ...base, ...change }) });
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.code).toBe('invalid_hf_config');
          expect(r.error.field).toBe(field);
          expect(r.error.message).toMatch(message);
        }
      } finally {
        c.close();
        await serve.stop();
      }
    },
  );
});
