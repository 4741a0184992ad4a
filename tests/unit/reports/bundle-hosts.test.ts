// An imported run's spec.hosts reach the bundle's hostfile, and DeepSpeed's launcher
// runs `ssh … <first host> hostname` — a host that is an ssh option must never get there.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import type { RunDetail } from '../../../electron/contract';
import { openTempStore, seedRun, tempDir } from './fixtures';

let store: HistoryStore;
const out = tempDir('offload-bundle-hosts-');
const marker = path.join(out, 'proxy-command-ran');
const EVIL = `-oProxyCommand=touch\${IFS}${marker}`;

/** The stored run, with spec.hosts as an imported file could have them. */
function getRun(id: string): RunDetail | null {
  const detail = store.getRun(id, 0);
  if (!detail) return null;
  const hosts = id === 'evil-1' ? [EVIL, 'node-2'] : id === 'spaced-1' ? ['node-1', 'node 2@x'] : null;
  return hosts ? { ...detail, spec: { ...(detail.spec as object), hosts } } : detail;
}

beforeAll(() => {
  store = openTempStore().store;
  seedRun(store, { id: 'evil-1', strategy: 'zero2-offload', stepSeconds: 15, gpus: 4, nodes: 2 });
  seedRun(store, { id: 'spaced-1', strategy: 'zero2-offload', stepSeconds: 15, gpus: 4, nodes: 2 });
  seedRun(store, { id: 'good-1', strategy: 'zero2-offload', stepSeconds: 15, gpus: 4, nodes: 2 });
});
afterAll(() => store?.close());

const listFiles = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));

describe('reproduction bundle hosts: a host that is an ssh option never reaches the launcher', () => {
  it('leaves out the hostfile of a run whose host is an ssh option, and run.sh stops saying which host and why', async () => {
    const reports = createReports({ getRun, compare: (i, b) => store.compare(i, b), appVersion: '1.2.3' });
    const dir = path.join(out, 'repro');
    await reports.export({ runIds: ['evil-1', 'spaced-1', 'good-1'], format: 'bundle', path: dir });
    const [evil, spaced, good] = fs
      .readdirSync(dir)
      .filter((f) => fs.statSync(path.join(dir, f)).isDirectory())
      .sort();

    // No hostfile for the hostile run (nor for one with a space or '@'); the clean one keeps its own.
    expect(fs.existsSync(path.join(dir, evil, 'hostfile'))).toBe(false);
    expect(fs.existsSync(path.join(dir, spaced, 'hostfile'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, good, 'hostfile'), 'utf8')).toBe('node-1 slots=4\nnode-2 slots=4\n');
    // No file of the bundle holds the host as a line of its own (a hostfile line or a bare word).
    for (const file of listFiles(dir))
      for (const line of fs.readFileSync(file, 'utf8').split('\n'))
        expect(line.trimStart().startsWith('-o'), `${file}: ${line}`).toBe(false);

    // run.sh says which host was refused and why, and stops before the launcher.
    const script = fs.readFileSync(path.join(dir, evil, 'run.sh'), 'utf8');
    expect(script).toContain('hostfile left out');
    expect(script).toContain('is not a host name or IPv4 address');
    expect(script.indexOf('exit 2\n')).toBeLessThan(script.indexOf('exec deepspeed'));
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('## Hosts left out');
    expect(readme).toContain(`${evil}: host \``);
    expect(readme).toContain(`${spaced}: host \`node 2@x\``);
    expect(readme).not.toContain(`${good}: host`);

    // Run it as a user would, with a deepspeed on PATH that records being started.
    const bin = path.join(out, 'bin');
    const engine = path.join(out, 'engine');
    fs.mkdirSync(bin, { recursive: true });
    fs.mkdirSync(engine, { recursive: true });
    fs.writeFileSync(path.join(engine, 'bench.py'), '');
    const started = path.join(out, 'deepspeed-started');
    fs.writeFileSync(path.join(bin, 'deepspeed'), `#!/bin/sh\necho "$@" > '${started}'\n`, { mode: 0o755 });
    const res = spawnSync('bash', [path.join(dir, evil, 'run.sh')], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, OFFLOAD_STUDIO_ENGINE: engine },
      timeout: 10_000,
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('hostfile left out');
    expect(res.stderr).toContain('-oProxyCommand=touch${IFS}');
    expect(fs.existsSync(started)).toBe(false);
    expect(fs.existsSync(marker)).toBe(false);

    // The clean run's script still starts the launcher with its hostfile.
    const ok = spawnSync('bash', [path.join(dir, good, 'run.sh')], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, OFFLOAD_STUDIO_ENGINE: engine },
      timeout: 10_000,
    });
    expect(ok.status, ok.stderr).toBe(0);
    expect(fs.readFileSync(started, 'utf8')).toContain('--hostfile hostfile --num_nodes 2');
  });
});
