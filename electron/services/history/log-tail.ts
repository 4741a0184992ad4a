// The last lines of a run's log, read from the end of the file (logs of long runs can be large;
// reading them whole to show 200 lines would be wasteful).
import fs from 'node:fs';

export function readLogTail(file: string | null, maxLines: number, maxBytes = 256 * 1024): string[] {
  if (!file || maxLines <= 0) return [];
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fs.fstatSync(fd).size;
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
