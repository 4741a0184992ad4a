// A model given as a path is read by the backend itself (model-guard for plan, runs/start, tune and
// plan/user-config; the tuner's resolveModel): a folder's config.json that is a FIFO hung the read in
// open() for good, one linked to /dev/zero filled memory (issue 48). Both doors now read it as a
// bounded regular file and refuse it with its path, whatever front end called.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { resolveModel } from '../../../electron/services/tuner';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-model-folder-'));
let backend: Backend;
const writers: ChildProcess[] = [];

/**
 * A folder whose config.json is a real FIFO. A writer process opens it and closes it after 3 s, so a
 * reader that trusts the path (the old code) blocks only that long and then fails the test on its
 * message, instead of hanging the test worker for good.
 */
function fifoFolder(name: string): string {
  const folder = path.join(dir, name);
  fs.mkdirSync(folder);
  const fifo = path.join(folder, 'config.json');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const script = 'const fs = require("fs"); const fd = fs.openSync(process.argv[1], "w"); setTimeout(() => fs.closeSync(fd), 3000);';
  writers.push(spawn(process.execPath, ['-e', script, fifo], { stdio: 'ignore' }));
  return folder;
}

beforeAll(() => {
  backend = createBackend({ dataDir: path.join(dir, 'data'), transport: 'cli' });
});
afterAll(async () => {
  for (const w of writers) w.kill('SIGKILL');
  await backend?.close();
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as { code: string; field?: string; message: string },
  );

describe('a model folder whose config.json is a FIFO', () => {
  it('is refused by plan/compute at once, naming the file', async () => {
    const folder = fifoFolder('served');
    const started = Date.now();
    const e = await refusal(backend.invoke('plan/compute', { workload: { model: folder, seqLen: 32, microBatch: 1, gpus: 1 } }));
    expect(e?.code, e?.message).toBe('bad_file');
    expect(e?.field).toBe('model');
    expect(e?.message).toContain(path.join(folder, 'config.json'));
    expect(e?.message).toMatch(/is not a regular file/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("the tuner's resolveModel refuses it instead of blocking", () => {
    const file = path.join(fifoFolder('tuner'), 'config.json');
    expect(() => resolveModel(file)).toThrow(/is not a regular file/);
  });
});
