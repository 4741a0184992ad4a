// SQLite was never checkpointed on close (cached statements left open, then exit):
// history.db held only the schema and every run lived in history.db-wal, so copying the database
// file (a backup, moving to another machine) lost every run. Reproduced with a real serve and the
// real CLI: after a clean stop the database file alone holds the runs and the -wal is empty.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { describe, expect, it } from 'vitest';
import { FAKE_PYTHON, WsClient, repoRoot, spawnServe, tinySweep, tmpDir } from './helpers';

/** The runs in a copy of history.db made WITHOUT its -wal/-shm (what `cp history.db` does). */
function runsInCopyOfDbFileAlone(dataDir: string): string[] {
  const copy = path.join(tmpDir('os-db-copy-'), 'history.db');
  fs.copyFileSync(path.join(dataDir, 'history.db'), copy);
  const db = new DatabaseSync(copy, { readOnly: true });
  try {
    const hasRuns = db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'runs'").get() as { n: number };
    if (hasRuns.n === 0) return [];
    return (db.prepare('SELECT id FROM runs ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

const walBytes = (dataDir: string) => {
  const wal = path.join(dataDir, 'history.db-wal');
  return fs.existsSync(wal) ? fs.statSync(wal).size : 0;
};

describe('history.db is checkpointed on close', () => {
  it(
    'serve stopped with SIGTERM after a sweep: history.db alone holds the run and its samples; the -wal is empty',
    { timeout: 90_000 },
    async () => {
      const dataDir = tmpDir('os-db-serve-');
      const serve = await spawnServe(dataDir, { FAKE_RUNNER_DELAY: '0' });
      const ws = await WsClient.connect(serve.origin, serve.token);
      const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(FAKE_PYTHON, { steps: 3 }));
      await ws.waitEvent(
        (e) =>
          e.event === 'runs/status' &&
          (e.payload as { sweepId: string; sweepDone: boolean }).sweepId === sweepId &&
          (e.payload as { sweepDone: boolean }).sweepDone,
        60_000,
      );
      ws.close();
      await serve.stop();
      expect(walBytes(dataDir)).toBe(0);
      expect(runsInCopyOfDbFileAlone(dataDir)).toEqual(runIds);
      const db = new DatabaseSync(path.join(dataDir, 'history.db'), { readOnly: true });
      expect((db.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number }).n).toBeGreaterThan(0);
      db.close();
    },
  );

  it('the CLI (import-runs) leaves history.db complete on its own', { timeout: 60_000 }, async () => {
    const dir = tmpDir('os-db-cli-');
    const dataDir = path.join(dir, 'data');
    const file = path.join(dir, 'one.runs.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 'offload-studio/runs',
        version: 1,
        schemaVersion: 3,
        exportedAt: '2026-12-01T00:00:00.000Z',
        source: null,
        runs: [
          {
            run: {
              id: 'r-cli-ckpt',
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
      }),
    );
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'electron/cli/main.ts', 'import-runs', file, '--data-dir', dataDir], {
        cwd: repoRoot,
        stdio: 'ignore',
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
      child.on('close', (c) => (clearTimeout(timer), resolve(c)));
    });
    expect(code).toBe(0);
    expect(walBytes(dataDir)).toBe(0);
    expect(runsInCopyOfDbFileAlone(dataDir)).toEqual(['r-cli-ckpt']);
  });
});
