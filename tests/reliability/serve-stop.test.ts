// Stopping `serve` ends every child it started. `npm run serve` is started as a user
// would (npm → sh → node: npm forwards SIGTERM to sh only, and dash does not exec, so the server
// watches its parent: scripts/serve.mjs), with a sweep running (fake runner) and Chromium up from a
// PDF export; SIGTERM to the top process (npm) → npm exits, and no process of its tree is left.
// A direct `serve` gets SIGINT the same way. The rows are final (cancelled), DB ok.
// (Windows: no process groups; runner-process.ts and the install end trees with taskkill /T /F:
// a code path these tests cannot reach.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../helpers/browser';
import { FAKE_PYTHON, WsClient, alive, descendants, integrityCheck, repoRoot, spawnServe, tinySweep, tmpDir, until } from './helpers';

const leftovers: number[] = [];
const clients: WsClient[] = [];
afterEach(() => {
  clients.splice(0).forEach((c) => c.close());
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Alive and not a zombie (a zombie holds nothing; its parent reaps it). */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A sweep running on the fake runner and Chromium up (a PDF export), as children of `serve`. */
async function busy(origin: string, token: string, dataDir: string) {
  const ws = await WsClient.connect(origin, token);
  clients.push(ws);
  const done = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(FAKE_PYTHON, { steps: 2 }));
  await ws.waitEvent(
    (e) =>
      e.event === 'runs/status' &&
      (e.payload as { sweepId: string; sweepDone: boolean }).sweepId === done.sweepId &&
      (e.payload as { sweepDone: boolean }).sweepDone,
    60_000,
  );
  const pdf = fs.existsSync(CHROMIUM_PATH)
    ? await ws.request('reports/export', { runIds: done.runIds, format: 'pdf', path: path.join(dataDir, 'report.pdf') }, 90_000)
    : null;
  const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(FAKE_PYTHON, { steps: 400 }));
  await ws.waitEvent((e) => e.event === 'runs/progress' && (e.payload as { sweepId: string; step: number }).sweepId === sweepId, 60_000);
  return { pdf, runId: runIds[0] };
}

function rowStatus(dataDir: string, runId: string): Promise<string> {
  return import('@photostructure/sqlite').then(({ DatabaseSync }) => {
    const db = new DatabaseSync(path.join(dataDir, 'history.db'), { readOnly: true });
    try {
      return (db.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as { status: string }).status;
    } finally {
      db.close();
    }
  });
}

describe('stopping serve ends every child it started', () => {
  it('`npm run serve` + SIGTERM to npm: server, runner and Chromium all gone; the run is cancelled', { timeout: 240_000 }, async () => {
    const dataDir = tmpDir('os-stop-');
    const npm = spawn('npm', ['run', '--silent', 'serve', '--', '--port', '0', '--data-dir', dataDir], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FAKE_RUNNER_DELAY: '0.3' },
    });
    let output = '';
    npm.stdout!.on('data', (d) => (output += d));
    npm.stderr!.on('data', (d) => (output += d));
    const npmExited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    try {
      await until(() => /Open: http/.test(output), 120_000, `serve's URL (output: ${output})`);
      const url = new URL(/Open: (http:\/\/\S+)/.exec(output)![1]);
      const { pdf, runId } = await busy(url.origin, url.searchParams.get('token')!, dataDir);

      const tree = descendants(npm.pid!);
      leftovers.push(...tree);
      const named = tree.map((pid) => `${pid} ${cmdline(pid)}`);
      console.log(`[serve-stop] npm ${npm.pid}; its tree:\n  ${named.map((c) => c.slice(0, 110)).join('\n  ')}`);
      expect(
        named.some((c) => /electron\/server\/cli-entry|scripts\/serve\.mjs/.test(c)),
        'the server',
      ).toBe(true);
      expect(
        named.some((c) => /fake_runner\.py/.test(c)),
        'the runner',
      ).toBe(true);
      if (pdf?.ok)
        expect(
          named.some((c) => /chrom/i.test(c)),
          'Chromium from the PDF export',
        ).toBe(true);
      else console.log(`[serve-stop] no Chromium case: ${pdf ? JSON.stringify(pdf) : `no ${CHROMIUM_PATH}`}`);

      const t0 = Date.now();
      process.kill(npm.pid!, 'SIGTERM');
      await npmExited;
      await until(
        () => tree.every((pid) => !running(pid)),
        30_000,
        `every process of the tree to end (left: ${tree
          .filter(running)
          .map((p) => `${p} ${cmdline(p)}`)
          .join('; ')})`,
      );
      console.log(`[serve-stop] ${tree.length} processes gone ${Date.now() - t0} ms after SIGTERM to npm`);
      expect(await rowStatus(dataDir, runId)).toBe('cancelled');
      expect(integrityCheck(dataDir)).toBe('ok');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });

  // One Ctrl-C under `npm run serve` arrives twice (the terminal's and npm's forwarded copy): one press, a graceful stop.
  it(
    'serve itself + SIGINT (Ctrl-C, relayed once more 20 ms later): runner gone, run cancelled, exit 0',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-stop-');
      const serve = await spawnServe(dataDir, { FAKE_RUNNER_DELAY: '0.3' });
      const { runId } = await busy(serve.origin, serve.token, dataDir);
      const tree = descendants(serve.child.pid!);
      leftovers.push(...tree);
      process.kill(serve.child.pid!, 'SIGINT');
      setTimeout(() => serve.child.exitCode === null && serve.child.kill('SIGINT'), 20);
      expect(await serve.exited, serve.output()).toEqual({ code: 0, signal: null });
      await until(() => tree.every((pid) => !running(pid)), 20_000, 'every child of serve to end');
      expect(await rowStatus(dataDir, runId)).toBe('cancelled');
      expect(integrityCheck(dataDir)).toBe('ok');
    },
  );
});
