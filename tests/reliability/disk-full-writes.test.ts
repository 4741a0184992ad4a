// Disk full: settings and report writes on a full disk answered Node's raw
// `ENOSPC: no space left on device, write` and could leave 0-byte temp files. Against a real
// serve whose data folder is a tmpfs filled to the last byte. Needs root for mount; skipped with
// the reason otherwise.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, rawHttp, spawnServe, tmpDir, type ServeProcess } from './helpers';

function canMount(): string | null {
  const probe = tmpDir('os-mnt-probe-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { encoding: 'utf8' });
  if (r.status !== 0) return `mount -t tmpfs not permitted here (${(r.stderr || r.error?.message || '').trim()})`;
  spawnSync('umount', [probe]);
  return null;
}
const mountProblem = canMount();
if (mountProblem) console.log(`[disk-full-writes] skipped: ${mountProblem}`);

let dataDir = '';
let serve: ServeProcess | undefined;
let ws: WsClient | undefined;
beforeAll(async () => {
  if (mountProblem) return;
  dataDir = tmpDir('os-full-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dataDir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  serve = await spawnServe(dataDir);
  ws = await WsClient.connect(serve.origin, serve.token);
  await ws.value('runs/import', {
    content: JSON.stringify({
      format: 'offload-studio/runs',
      version: 1,
      schemaVersion: 3,
      exportedAt: '2026-12-01T00:00:00.000Z',
      source: null,
      runs: [
        {
          run: {
            id: 'r-full-1',
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
          samples: { columns: ['step', 'warmup', 'step_seconds'], rows: [[1, 1, 0.6]] },
        },
      ],
    }),
    name: 'one.runs.json',
  });
  // Fill the disk to the last byte.
  const fd = fs.openSync(path.join(dataDir, 'filler.bin'), 'w');
  for (const size of [64 * 1024, 4096, 512, 1]) {
    const chunk = Buffer.alloc(size);
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch {
      // ENOSPC: next, smaller chunk
    }
  }
  fs.closeSync(fd);
}, 60_000);
afterAll(async () => {
  ws?.close();
  await serve?.stop();
  if (dataDir && !mountProblem) spawnSync('umount', ['-l', dataDir]);
});

const temps = () =>
  fs
    .readdirSync(dataDir, { recursive: true })
    .map(String)
    .filter((f) => /\.tmp$/.test(f));

describe('writes on a full disk say so and leave no temp files', () => {
  it.skipIf(mountProblem)('settings/update → disk_full with what to do, not raw ENOSPC; no temp file left; serve up', async () => {
    const r = await ws!.request('settings/update', { defaultSteps: 7 });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('disk_full');
      expect(r.error.message).toMatch(
        /^The disk is full \(writing .*settings\.json\); nothing was changed\. Free space on that disk and try again\.$/,
      );
      expect(r.error.message).not.toMatch(/ENOSPC|no space left/);
    }
    expect(temps()).toEqual([]);
    expect(
      (await rawHttp(serve!.port, `GET /healthz?token=${serve!.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).status,
    ).toBe(200);
  });

  it.skipIf(mountProblem)('reports/export (HTML) onto the full disk → disk_full; no temp file left', { timeout: 60_000 }, async () => {
    const r = await ws!.request(
      'reports/export',
      { runIds: ['r-full-1'], format: 'html', path: path.join(dataDir, 'report.html') },
      45_000,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('disk_full');
      expect(r.error.message).toMatch(/The disk is full \(writing .*report\.html\)/);
    }
    expect(temps()).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'report.html'))).toBe(false);
  });
});
