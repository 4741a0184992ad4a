// The session token of `serve`, against real processes: `--token` once accepted one character and
// stayed readable in /proc/<pid>/cmdline. Now a token under 32 characters is refused with the way
// out, `--token` is gone from the command line (with a warning that npm's wrappers keep it), and
// OFFLOAD_STUDIO_TOKEN or `--token-file FILE` (mode 600) keep it out of every command line. Every
// test failed on the code before its fix.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WsClient, node, repoRoot, spawnServe, tmpDir } from './helpers';

describe('the session token: at least 32 characters, kept out of command lines', () => {
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

// Issue 48: node's copy of --token was overwritten only once the server and all its services had
// loaded (about 4 s under load). Now it is the entry's first statement: the token must be gone from
// /proc/<pid>/cmdline before the services load, seen here as the SQLite addon being mapped.
describe('serve --token: the window it is readable', () => {
  it('the token leaves /proc/<pid>/cmdline before the services (the SQLite addon) are loaded', { timeout: 60_000 }, async () => {
    const token = 'W1ndow-' + 'w'.repeat(40);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'electron/server/cli-entry.ts', '--port', '0', '--data-dir', tmpDir('os-small-tok6-'), '--token', token],
      { cwd: repoRoot, stdio: 'ignore' },
    );
    const read = (f: string) => {
      try {
        return fs.readFileSync(`/proc/${child.pid}/${f}`, 'utf8');
      } catch {
        return '';
      }
    };
    let visibleWithServices = false;
    let gone = false;
    try {
      const deadline = Date.now() + 45_000;
      while (!gone && Date.now() < deadline && child.exitCode === null) {
        const maps = read('maps'); // read first: a token still visible after this was visible with these maps
        const visible = read('cmdline').includes(token);
        if (visible && /@photostructure[/+]sqlite|sqlite.*\.node/.test(maps)) visibleWithServices = true;
        gone = !visible && read('cmdline') !== '';
        await new Promise((r) => setTimeout(r, 2));
      }
    } finally {
      child.kill('SIGKILL');
    }
    expect(gone, 'the token never left the command line').toBe(true);
    expect(visibleWithServices, 'the token was still in /proc/<pid>/cmdline after the services loaded').toBe(false);
  });
});

describe('serve --token-file: a token nobody else can read', () => {
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
