// The one way the app writes a file it owns: a temp file beside the target (same folder, so the
// rename stays on one file system), fsync, rename over the target. A crash, a full disk or a
// concurrent reader never sees half a file under the name; a failed write leaves no temp behind.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A hidden, unique name beside the target: `.<name>.<random>.tmp`. */
export function tempNameBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
}

export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644). */
  mode?: number;
  /** Create the parent folder first (default false: a missing folder is the caller's ENOENT). */
  mkdir?: boolean;
}

/** Writes `data` to `target` atomically; returns the bytes written. */
export function writeFileAtomic(target: string, data: Buffer | string, options: AtomicWriteOptions = {}): number {
  if (options.mkdir) fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = tempNameBeside(target);
  try {
    const fd = fs.openSync(temp, 'wx', options.mode ?? 0o644);
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    // A write through a descriptor (ENOSPC) names no file: say which one it was for.
    const e = error as NodeJS.ErrnoException;
    if (e && typeof e === 'object' && e.path === undefined) e.path = target;
    throw error;
  }
  return Buffer.byteLength(data);
}

/** `value` as indented JSON (plus a newline), written atomically; the parent folder is created. */
export function writeJsonAtomic(file: string, value: unknown, options: { mode?: number; indent?: number } = {}): number {
  return writeFileAtomic(file, JSON.stringify(value, null, options.indent ?? 2) + '\n', { mode: options.mode, mkdir: true });
}

/** Writes a folder beside the target, then swaps it in (an old one is removed after). */
export function writeFolderAtomic(target: string, files: { name: string; data: Buffer | string; mode?: number }[]): number {
  const temp = tempNameBeside(target);
  let bytes = 0;
  try {
    fs.mkdirSync(temp);
    for (const f of files) {
      const dest = path.join(temp, f.name);
      if (!dest.startsWith(temp + path.sep)) throw new Error(`unsafe bundle entry ${f.name}`);
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.writeFileSync(dest, f.data, { mode: f.mode ?? 0o644 });
      bytes += Buffer.byteLength(f.data);
    }
    if (fs.existsSync(target)) {
      const old = tempNameBeside(target);
      fs.renameSync(target, old);
      fs.renameSync(temp, target);
      fs.rmSync(old, { recursive: true, force: true });
    } else fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  return bytes;
}
