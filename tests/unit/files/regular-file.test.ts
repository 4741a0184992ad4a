// The bounded regular-file reader every user-given CLI path goes through: regular
// files only (a FIFO, a device, a socket or a folder is refused naming the path, without blocking),
// and never more than the caller's limit, whatever the file reports or does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../electron/contract';
import { checkRegularFile, readRegularText } from '../../../electron/services/files';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-regular-file-'));
const limit = { label: '--model', maxBytes: 1024 * 1024 };
let server: net.Server;
const socketPath = path.join(dir, 'sock');

beforeAll(async () => {
  server = net.createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});
afterAll(() => server?.close());

/** The ApiError `fn` threw (the test fails when it threw nothing or something else). */
function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('readRegularText / checkRegularFile', () => {
  it('reads a regular file, and its field defaults to the flag', () => {
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, '{"a":1}');
    expect(readRegularText(file, limit)).toBe('{"a":1}');
    expect(() => checkRegularFile(file, limit)).not.toThrow();
  });

  it('refuses a FIFO at once (no writer, no hang), /dev/zero, a socket and a folder, naming the path', () => {
    const fifo = path.join(dir, 'fifo.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const started = Date.now();
    for (const file of [fifo, '/dev/zero', socketPath]) {
      for (const call of [() => readRegularText(file, limit), () => checkRegularFile(file, limit)]) {
        const e = refusal(call);
        expect(e.code).toBe('bad_file');
        expect(e.field).toBe('model');
        expect(e.message).toBe(`--model ${file} is not a regular file (a FIFO, device or socket); give a regular file.`);
      }
    }
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refusal(() => readRegularText(dir, limit)).message).toBe(`--model ${dir} is a folder; give a file.`);
  });

  it('says what is missing or unreadable', () => {
    const missing = path.join(dir, 'missing.json');
    const e = refusal(() => readRegularText(missing, { label: 'cluster save', maxBytes: 10, field: 'file' }));
    expect(e.code).toBe('not_found');
    expect(e.field).toBe('file');
    expect(e.message).toBe(`cluster save ${missing}: no such file.`);
  });

  it('refuses a file over the limit before reading it', () => {
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 3 * 1024 * 1024); // sparse
    const e = refusal(() => readRegularText(big, limit));
    expect(e.code).toBe('too_large');
    expect(e.message).toBe(`--model ${big} is 3.0 MiB; at most 1.0 MiB is read here. Check that this is the right file.`);
    expect(refusal(() => checkRegularFile(big, limit)).code).toBe('too_large');
  });

  it('holds the limit for a file whose size says nothing (/proc reports 0 bytes)', () => {
    if (!fs.existsSync('/proc/self/status')) return;
    expect(readRegularText('/proc/self/status', limit)).toMatch(/^Name:/);
    const e = refusal(() => readRegularText('/proc/self/status', { label: '--machine', maxBytes: 16 }));
    expect(e.code).toBe('too_large');
    expect(e.message).toMatch(/^--machine \/proc\/self\/status is over 16 B; at most 16 B is read here/);
  });
});
