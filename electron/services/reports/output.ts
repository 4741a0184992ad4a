// Where a report may be written, and how: only at the path the user chose, validated, never
// over an existing file unless asked, atomically (temp file beside it + rename).
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, reportExtensions, type ReportFormat } from '../../contract';

export interface Target {
  path: string;
  /** The bundle as a folder (true) or a .zip; always false for file formats. */
  folder: boolean;
}

export function validateTarget(input: string, format: ReportFormat, overwrite: boolean): Target {
  if (input.includes('\0')) throw new ApiError('bad_path', 'The path contains a NUL character.', 'path');
  if (!path.isAbsolute(input)) throw new ApiError('bad_path', `The path must be absolute, got '${input}'.`, 'path');
  const target = path.resolve(input);
  const ext = path.extname(target).toLowerCase();
  const allowed = reportExtensions[format];
  const otherExts = Object.values(reportExtensions)
    .flat()
    .filter((e) => e && !allowed.includes(e));
  const folder = format === 'bundle' && ext !== '.zip';
  if (format === 'bundle' ? otherExts.includes(ext) : !allowed.includes(ext))
    throw new ApiError(
      'bad_path',
      `A ${format} report must be ${format === 'bundle' ? 'a folder or a .zip' : `a ${allowed.join(' or ')} file`}; '${path.basename(target)}' is not.`,
      'path',
    );
  const parent = path.dirname(target);
  let parentStat: fs.Stats;
  try {
    parentStat = fs.statSync(parent);
  } catch {
    throw new ApiError('bad_path', `The folder ${parent} does not exist.`, 'path');
  }
  if (!parentStat.isDirectory()) throw new ApiError('bad_path', `${parent} is not a folder.`, 'path');
  const existing = fs.lstatSync(target, { throwIfNoEntry: false });
  if (existing) {
    if (!overwrite) throw new ApiError('exists', `${target} already exists. Choose another name, or overwrite it.`, 'path');
    // Overwrite replaces like with like: a report file never replaces a folder, nor the reverse.
    if (folder !== existing.isDirectory())
      throw new ApiError(
        'bad_path',
        `${target} exists and is ${existing.isDirectory() ? 'a folder' : 'a file'}; it will not be replaced by ${folder ? 'a folder' : 'a file'}.`,
        'path',
      );
  }
  return { path: target, folder };
}
