// Against a real `serve`: cluster files and the launcher's folder in places
// another user prepared, and remote command injection through the interpreter path. `ssh` is a
// recording stand-in on PATH that does what the real remote side does with our words: joins them
// with spaces and hands the line to a shell (here, locally).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, spawnServe, tmpDir, type ServeProcess } from './helpers';

const NOBODY = 65534;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const me = typeof process.getuid === 'function' ? process.getuid() : 0;

let serve: ServeProcess;
let client: WsClient;
let root: string; // everything of this test
let sshLog: string;
let sharedTmp: string; // TMPDIR of the server: world-writable and sticky, like /tmp
let home: string;

const cluster = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  hosts: [{ host: 'node-a', slots: 1, sshUser: null, sshPort: 22, pythonPath: '/usr/bin/python3' }],
  masterAddr: 'node-a',
  masterPort: 29500,
  ...extra,
});

beforeAll(async () => {
  root = tmpDir('os-attack-cluster-');
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  sshLog = path.join(root, 'ssh.log');
  // The stand-in: skip ssh's options up to `--`, then the host, then run the remote line through sh
  // in `root` (the remote's home, as it were).
  fs.writeFileSync(
    path.join(bin, 'ssh'),
    `#!/bin/sh
while [ "$#" -gt 0 ]; do case "$1" in --) shift; break;; -F|-o|-p|-l|-i) shift 2;; *) shift;; esac; done
shift
printf '%s\\n' "$*" >> ${JSON.stringify(sshLog)}
cd ${JSON.stringify(root)} && exec sh -c "$*"
`,
    { mode: 0o755 },
  );
  sharedTmp = path.join(root, 'tmp');
  fs.mkdirSync(sharedTmp);
  fs.chmodSync(sharedTmp, 0o1777);
  home = path.join(root, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  // The data folder has a space, as the default "~/.config/Offload Studio" has.
  const dataDir = path.join(root, 'Offload Studio');
  serve = await spawnServe(dataDir, { PATH: `${bin}:${process.env.PATH}`, TMPDIR: sharedTmp, HOME: home });
  client = await WsClient.connect(serve.origin, serve.token);
});
afterAll(async () => {
  client?.close();
  await serve?.stop();
});

describe('cluster files and the launcher folder are private, owner checked', () => {
  it.skipIf(!isRoot)('a folder another user made in advance at the old temp path is not used, and its links are not followed', async () => {
    // What the attacker prepares: the predictable folder, world-writable, with ssh_config a link to a victim file.
    const planted = path.join(sharedTmp, `offload-studio-${me}`, 'clusters', 'lab');
    fs.mkdirSync(planted, { recursive: true });
    for (let d = planted; d !== sharedTmp; d = path.dirname(d)) (fs.chownSync(d, NOBODY, NOBODY), fs.chmodSync(d, 0o777));
    const victim = path.join(root, 'victim.conf');
    fs.writeFileSync(victim, 'precious\n', { mode: 0o600 });
    fs.symlinkSync(victim, path.join(planted, 'ssh_config'));
    fs.symlinkSync(victim, path.join(planted, 'hostfile'));

    await client.value('cluster/save', cluster('lab', { engineDir: path.join(home, 'engine') }));
    const launch = await client.value<{ sshConfigPath: string; hostfilePath: string; envFilePath: string; cwd: string }>(
      'cluster/launch-preview',
      { name: 'lab' },
    );
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    const dir = path.dirname(launch.sshConfigPath);
    expect(dir.startsWith(planted)).toBe(false);
    expect(dir).not.toMatch(/\s/); // pdsh splits PDSH_SSH_ARGS on spaces
    const stat = fs.lstatSync(dir);
    expect(stat.isDirectory() && !stat.isSymbolicLink()).toBe(true);
    expect(stat.uid).toBe(me);
    expect(stat.mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(launch.sshConfigPath, 'utf8')).toContain('Host node-a');
    // A second use reuses the same private folder (its path is remembered in the data folder).
    const again = await client.value<{ sshConfigPath: string }>('cluster/launch-preview', { name: 'lab' });
    expect(again.sshConfigPath).toBe(launch.sshConfigPath);
    // If someone else takes that folder over, it is not used any more.
    fs.chownSync(dir, NOBODY, NOBODY);
    const third = await client.value<{ sshConfigPath: string }>('cluster/launch-preview', { name: 'lab' });
    expect(path.dirname(third.sshConfigPath)).not.toBe(dir);
    expect(fs.lstatSync(path.dirname(third.sshConfigPath)).uid).toBe(me);
  });

  it('the default runner folder is in the home folder, not a shared /tmp name', async () => {
    await client.value('cluster/save', cluster('nodir'));
    const launch = await client.value<{ cwd: string; args: string[] }>('cluster/launch-preview', { name: 'nodir' });
    expect(launch.cwd).toBe(path.join(home, '.cache', 'offload-studio', 'engine'));
    expect(launch.cwd).not.toMatch(/^\/tmp\/offload-studio/);
    expect(launch.args).toContain(path.join(home, '.cache', 'offload-studio', 'engine', 'bench.py'));
  });

  it.skipIf(!isRoot)('a runner folder another user owns (a planted deepspeed/ package) is refused by launch and pre-flight', async () => {
    const engineDir = path.join(sharedTmp, 'offload-studio', 'engine');
    fs.mkdirSync(path.join(engineDir, 'deepspeed'), { recursive: true });
    fs.writeFileSync(
      path.join(engineDir, 'deepspeed', '__init__.py'),
      `open(${JSON.stringify(path.join(root, 'pwned'))}, 'w').write('x')\n`,
    );
    for (const d of [path.dirname(engineDir), engineDir, path.join(engineDir, 'deepspeed')])
      (fs.chownSync(d, NOBODY, NOBODY), fs.chmodSync(d, 0o777));
    await client.value('cluster/save', cluster('planted', { engineDir }));
    const launch = await client.request('cluster/launch-preview', { name: 'planted' });
    expect(launch.ok).toBe(false);
    if (!launch.ok) {
      expect(launch.error.code).toBe('unsafe_path');
      expect(launch.error.message).toMatch(/belongs to another user/);
    }
    const pre = await client.request('cluster/preflight', { name: 'planted' }, 120_000);
    // Refused either way (the launch files are written first); never run from there.
    if (pre.ok) {
      const rows = (pre.value as { rows: { host: string; check: string; ok: boolean; detail: string }[] }).rows;
      expect(rows.find((r) => r.check === 'runner' && !r.ok)?.detail).toMatch(/belongs to another user/);
    } else expect(pre.error.code).toBe('unsafe_path');
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
  });
});

describe('the interpreter path cannot inject a remote command; a path with spaces works', () => {
  it('settings/update refuses a pythonPath with shell characters or a relative one, naming the field', async () => {
    for (const bad of ['/usr/bin/python3;touch /tmp/x', '/usr/bin/python3 $(id)', '/a`id`/python', 'python3', '/a\nb']) {
      const r = await client.request('settings/update', { pythonPath: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error.field, bad).toBe('pythonPath');
    }
    const ok = await client.request('settings/update', { pythonPath: '/usr/bin/python3' });
    expect(ok.ok).toBe(true);
  });

  it(
    'a hand-edited settings.json pythonPath that is a real file with shell characters runs nothing on the host',
    { timeout: 180_000 },
    async () => {
      const marker = path.join(root, 'injected');
      // A real interpreter at a path holding a command: `…/x;touch injected;/python` (the remote shell runs in root).
      const evilDir = path.join(root, 'x;touch injected;');
      fs.mkdirSync(evilDir);
      const evil = path.join(evilDir, 'python');
      fs.symlinkSync('/usr/bin/python3', evil);
      const settingsFile = path.join(serve.dataDir, 'settings.json');
      const current = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : {};
      fs.writeFileSync(settingsFile, JSON.stringify({ ...current, pythonPath: evil }));
      const engineDir = path.join(home, 'engine-inj');
      fs.mkdirSync(engineDir, { mode: 0o700 });
      await client.value('cluster/save', cluster('inj', { engineDir }));
      fs.writeFileSync(sshLog, '');
      const r = await client.request('cluster/preflight', { name: 'inj' }, 150_000);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(fs.existsSync(marker)).toBe(false);
      // ssh was reached (reachability, then the versions probe), and every word it carried was quoted.
      const lines = fs.readFileSync(sshLog, 'utf8').trim().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(line, line).toMatch(/^'[^']*'( '[^']*')*$/);
    },
  );

  it(
    "the app's own venv under a folder with a space: accepted, one word on the remote side, and the launch limit is named",
    { timeout: 180_000 },
    async () => {
      const venvBin = path.join(root, 'Offload Studio', 'engine-venv', 'bin');
      fs.mkdirSync(venvBin, { recursive: true });
      const python = path.join(venvBin, 'python');
      fs.symlinkSync('/usr/bin/python3', python);
      expect((await client.request('settings/update', { pythonPath: python })).ok).toBe(true);
      const engineDir = path.join(home, 'engine-space');
      fs.mkdirSync(engineDir, { mode: 0o700 });
      await client.value('cluster/save', cluster('spaced', { engineDir }));
      const r = await client.value<{ rows: { host: string; check: string; ok: boolean; detail: string; fix: string | null }[] }>(
        'cluster/preflight',
        { name: 'spaced' },
        150_000,
      );
      const hostPython = r.rows.find((x) => x.host === 'node-a' && x.check === 'python');
      expect(hostPython, JSON.stringify(r.rows)).toBeDefined();
      // The head's interpreter path arrived as one word: the host found it.
      expect(hostPython!.detail).not.toMatch(/is missing here/);
      expect(hostPython!.ok).toBe(true);
      // …and pre-flight says that DeepSpeed's own pdsh line would split it.
      const limit = r.rows.find((x) => x.host === '(this machine)' && x.check === 'python' && /unquoted/.test(x.detail));
      expect(limit?.ok).toBe(false);
      expect(limit?.fix).toMatch(/plain path/);
    },
  );
});
