// The sweep lock is written to a temp file beside sweep.lock and linked into place.
// On a full disk the 'wx' open created that temp and the write then failed (ENOSPC), so every
// runs/start left a 0-byte `.sweep.lock.<hex>.tmp` behind. A failed write must remove it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireSweepLock } from '../../../electron/services/engine/orphans';

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-sweep-lock-'));
const leftovers = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.tmp') || f === 'sweep.lock');

/** The error acquireSweepLock threw, or null. */
function acquireError(dir: string): NodeJS.ErrnoException | null {
  try {
    acquireSweepLock(dir, 'test-owner').release();
    return null;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

function canMount(): string | null {
  const probe = tmpDir();
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { encoding: 'utf8' });
  if (r.status !== 0) return `mount -t tmpfs not permitted here (${(r.stderr || r.error?.message || '').trim()})`;
  spawnSync('umount', [probe]);
  return null;
}
const mountProblem = canMount();
if (mountProblem) console.log(`[sweep-lock-temp] real full disk skipped: ${mountProblem}`);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('sweep lock on a failing write', () => {
  it('a write that fails after creating the temp (ENOSPC) leaves no .tmp; the next try takes the lock', () => {
    const dir = tmpDir();
    const realWrite = fs.writeFileSync;
    // What a full disk does: the file is created, the write of its bytes fails.
    vi.spyOn(fs, 'writeFileSync').mockImplementationOnce((file, _data, options) => {
      realWrite(file, '', options as fs.WriteFileOptions);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    });
    expect(acquireError(dir)?.code).toBe('ENOSPC');
    expect(leftovers(dir)).toEqual([]);
    vi.restoreAllMocks();
    // Space again: the lock is taken and released as usual, and nothing stays behind.
    expect(acquireError(dir)).toBeNull();
    expect(leftovers(dir)).toEqual([]);
  });

  it.skipIf(mountProblem)('on a real full tmpfs, repeated starts leave no .tmp behind', () => {
    const dir = tmpDir();
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    try {
      // Fill the disk to the last byte.
      const fd = fs.openSync(path.join(dir, 'filler.bin'), 'w');
      for (const size of [16 * 1024, 4096, 512, 1]) {
        const chunk = Buffer.alloc(size);
        try {
          for (;;) fs.writeSync(fd, chunk);
        } catch {
          // ENOSPC: the next, smaller chunk
        }
      }
      fs.closeSync(fd);
      for (let i = 0; i < 3; i++) expect(acquireError(dir)?.code).toBe('ENOSPC');
      expect(leftovers(dir)).toEqual([]);
    } finally {
      spawnSync('umount', ['-l', dir]);
    }
  });
});
