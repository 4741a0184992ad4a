// The last lines of a run's log, read from the end of the file (logs of long runs can be large;
// reading them whole to show 200 lines would be wasteful).
//
// Only logs inside <dataDir>/logs are read: a run's log_path may come from an imported file (or a
// hand-edited database), and runs/get must not become a way to read any file on the machine.
// A relative path is taken inside that folder; symlinks are resolved before the check; only a
// regular file is read (a FIFO would block, a device never ends).
import fs from 'node:fs';
import path from 'node:path';

/**
 * The real path of `file` when it lies inside `logsDir`, else null. A path elsewhere (a data folder
 * that was moved, a run imported from another machine) is looked up by its file name in `logsDir`.
 */
export function confinedLogFile(file: string | null, logsDir: string): string | null {
  if (!file || file.includes('\0')) return null;
  let root: string;
  try {
    root = fs.realpathSync(logsDir);
  } catch {
    return null; // no logs folder yet
  }
  for (const candidate of [path.resolve(logsDir, file), path.join(logsDir, path.basename(file))]) {
    let real: string;
    try {
      real = fs.realpathSync(candidate);
    } catch {
      continue;
    }
    if (real.startsWith(root + path.sep)) return real;
  }
  return null;
}

export function readLogTail(file: string | null, maxLines: number, logsDir: string, maxBytes = 256 * 1024): string[] {
  const confined = confinedLogFile(file, logsDir);
  if (!confined || maxLines <= 0) return [];
  let fd: number;
  try {
    fd = fs.openSync(confined, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return [];
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return [];
    const size = stat.size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    let text = buffer.toString('utf8');
    if (length < size) text = text.slice(text.indexOf('\n') + 1); // drop the partial first line
    const lines = text.split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-maxLines);
  } finally {
    fs.closeSync(fd);
  }
}
