// The one way a path the user typed is read: regular files only, and never more than the caller's
// limit. fs.readFileSync on such a path trusts it: a FIFO blocks the process in open() for good,
// /dev/zero grows a buffer until memory runs out (5.1 GB in 12 s), a socket or folder throws a raw
// errno. Here the path is opened non-blocking (a FIFO cannot hang it), refused by fstat unless it
// is a regular file, and read with a bounded buffer (a file that grows meanwhile is still capped).
// Every message names the path and the flag it came from, and never echoes the file's content.
import fs from 'node:fs';
import { ApiError, formatBytes } from '../../contract';

/** A Hugging Face config.json is a few KiB; the most any door (CLI, backend, tuner) reads of one. */
export const MODEL_CONFIG_MAX_BYTES = 4 * 1024 * 1024;

export interface ReadLimit {
  /** How messages name the file's origin: its flag (`--model`) or the command (`cluster save`). */
  label: string;
  /** The largest file accepted, in bytes: a bigger one is refused before a byte is read. */
  maxBytes: number;
  /** The request field errors point at (default: the label without leading dashes). */
  field?: string;
}

const fieldOf = (limit: ReadLimit) => limit.field ?? limit.label.replace(/^-+/, '');

function tooLarge(file: string, limit: ReadLimit, size: string): ApiError {
  return new ApiError(
    'too_large',
    `${limit.label} ${file} is ${size}; at most ${formatBytes(limit.maxBytes)} is read here. Check that this is the right file.`,
    fieldOf(limit),
  );
}

/** An open descriptor of `file` that cannot block (O_NONBLOCK: a FIFO with no writer opens at once). */
function openNonBlocking(file: string, limit: ReadLimit): number {
  try {
    return fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const field = fieldOf(limit);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ApiError('not_found', `${limit.label} ${file}: no such file.`, field);
    if (code === 'EACCES' || code === 'EPERM')
      throw new ApiError('bad_path', `${limit.label} ${file}: permission denied; give a file you can read.`, field);
    // ENXIO: a socket (or a device with nothing behind it) cannot be opened as a file.
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw notRegular(file, limit);
    throw new ApiError('bad_path', `${limit.label} ${file}: cannot open it (${code ?? 'error'}).`, field);
  }
}

function notRegular(file: string, limit: ReadLimit): ApiError {
  return new ApiError(
    'bad_file',
    `${limit.label} ${file} is not a regular file (a FIFO, device or socket); give a regular file.`,
    fieldOf(limit),
  );
}

/** Throws unless the open `fd` is a regular file within the limit; returns its size. */
function checkOpen(fd: number, file: string, limit: ReadLimit): number {
  const stat = fs.fstatSync(fd);
  if (stat.isDirectory()) throw new ApiError('bad_file', `${limit.label} ${file} is a folder; give a file.`, fieldOf(limit));
  if (!stat.isFile()) throw notRegular(file, limit);
  if (stat.size > limit.maxBytes) throw tooLarge(file, limit, formatBytes(stat.size));
  return stat.size;
}

/** Throws (naming the path) unless `file` is a regular file of at most `limit.maxBytes`; reads nothing. */
export function checkRegularFile(file: string, limit: ReadLimit): void {
  const fd = openNonBlocking(file, limit);
  try {
    checkOpen(fd, file, limit);
  } finally {
    fs.closeSync(fd);
  }
}

/** The bytes of `file`, a regular file of at most `limit.maxBytes`; anything else is refused. */
export function readRegularFile(file: string, limit: ReadLimit): Buffer {
  const fd = openNonBlocking(file, limit);
  try {
    const size = checkOpen(fd, file, limit);
    // Sized from fstat, grown (never past one byte over the limit) for a file that grows meanwhile
    // or reports no size (/proc): the limit holds whatever the file does.
    let buffer = Buffer.alloc(Math.min(size, limit.maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > limit.maxBytes) break;
        const bigger = Buffer.alloc(Math.min(buffer.length * 2, limit.maxBytes + 1));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > limit.maxBytes) throw tooLarge(file, limit, `over ${formatBytes(limit.maxBytes)}`);
    return buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

/** The text (UTF-8) of a regular file of at most `limit.maxBytes`. */
export function readRegularText(file: string, limit: ReadLimit): string {
  return readRegularFile(file, limit).toString('utf8');
}
