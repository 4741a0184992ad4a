// The session token of `serve`, against real processes: `--token` once accepted one character and
// stayed readable in /proc/<pid>/cmdline. Now a token under 32 characters is refused with the way
// out, `--token` is gone from the command line (with a warning that npm's wrappers keep it), and
// OFFLOAD_STUDIO_TOKEN or `--token-file FILE` (mode 600) keep it out of every command line. Every
// test failed on the code before its fix.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WsClient, node, spawnServe, tmpDir } from './helpers';

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
