// A runs file on disk: written atomically, read with its size bounded and its JSON checked against
// the runs-file schema before any of it is believed (import-export.ts imports what this reads).
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, firstIssue, formatBytes, RUNS_FILE_FORMAT, RUNS_FILE_MAX_BYTES, RunsFileSchema, type RunsFile } from '../../contract';
import { writeFileAtomic } from '../../kernel';

/** Write atomically (temp file + rename), so a full disk never leaves half a file under the name. */
export function writeRunsFile(file: string, content: RunsFile): number {
  const text = JSON.stringify(content, null, 1) + '\n';
  try {
    writeFileAtomic(file, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC') throw new ApiError('disk_full', `The disk holding ${file} is full; nothing was written.`, 'path');
    if (code === 'ENOENT') throw new ApiError('bad_path', `The folder ${path.dirname(file)} does not exist.`, 'path');
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new ApiError('bad_path', `Cannot write ${file} (${code}): choose a folder you can write to.`, 'path');
    throw error;
  }
  return Buffer.byteLength(text);
}

/** The largest runs file import reads (a million samples export to well under this). */
export const MAX_RUNS_FILE_BYTES = RUNS_FILE_MAX_BYTES;

/**
 * Reads a runs file from this machine (the CLI's `import-runs FILE`). Regular files only: a FIFO
 * is opened non-blocking so it cannot hang the process, a device (/dev/zero) is refused before a
 * byte is read, and the size is capped. No error echoes the file's content.
 */
export function readRunsFile(file: string): RunsFile {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ApiError('not_found', `No file at ${file}.`, 'path');
    if (code === 'EACCES' || code === 'EPERM') throw new ApiError('bad_path', `Cannot read ${file}: permission denied.`, 'path');
    throw new ApiError('bad_path', `Cannot read ${file} (${code ?? 'error'}).`, 'path');
  }
  let buffer: Buffer;
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new ApiError('bad_file', `${file} is a folder; choose a runs file (*.runs.json) inside it.`, 'path');
    if (!stat.isFile())
      throw new ApiError(
        'bad_file',
        `${file} is not a regular file (a device, FIFO or socket); import reads regular runs files (*.runs.json) only.`,
        'path',
      );
    if (stat.size > MAX_RUNS_FILE_BYTES)
      throw new ApiError(
        'too_large',
        `${file} is ${(stat.size / 1048576).toFixed(0)} MiB; a runs file may be at most ${MAX_RUNS_FILE_BYTES / 1048576} MiB. Export fewer runs per file.`,
        'path',
      );
    // Read at most the cap (+1 to notice a file that grew meanwhile).
    buffer = Buffer.alloc(Math.min(stat.size, MAX_RUNS_FILE_BYTES) + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) break;
    }
    if (length > MAX_RUNS_FILE_BYTES)
      throw new ApiError(
        'too_large',
        `${file} is over ${MAX_RUNS_FILE_BYTES / 1048576} MiB; a runs file may be at most that. Export fewer runs per file.`,
        'path',
      );
    buffer = buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
  return parseRunsText(buffer.toString('utf8'), file, 'path');
}

/**
 * A runs file's text (from a path the CLI read, or the content a page sent) → a checked RunsFile.
 * `label` names the file in messages; `field` is the request field errors point at. Messages say
 * where the text is wrong (line/column, the JSON path), never what it holds.
 */
export function parseRunsText(text: string, label: string, field = 'content'): RunsFile {
  // The limit in bytes, as a file on disk has it, whichever door the text came by (Buffer.byteLength
  // counts without copying): never parsed past it.
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RUNS_FILE_BYTES)
    throw new ApiError(
      'too_large',
      `${label} is ${formatBytes(bytes)}; a runs file may be at most ${formatBytes(MAX_RUNS_FILE_BYTES)}. Export fewer runs per file.`,
      field,
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text ("Unexpected token 'r', "root:x:0:0"…"): only the position is kept.
    const position = /position (\d+)/.exec((error as Error).message);
    let where = '';
    if (position) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split('\n').length;
      where = ` (at line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
    }
    throw new ApiError(
      'bad_file',
      `${label} is not JSON${where}; a runs file is what \`npm run cli -- export-runs --out runs.json\` writes.`,
      field,
    );
  }
  const parsed = RunsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new ApiError(
      'bad_file',
      `${label} is not an Offload Studio runs file (${RUNS_FILE_FORMAT} v1): '${issue.path}' ${issue.message}.`,
      field,
    );
  }
  return parsed.data;
}
