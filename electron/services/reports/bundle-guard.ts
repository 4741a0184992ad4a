// What a bundle export with `overwrite` may replace: only a folder this app wrote as a
// reproduction bundle (its README.md heading, run folders holding only bundle files). Anything
// else at the path (a home folder, a project, a bundle someone added files to) is refused, never
// deleted: overwrite removes the old folder recursively.
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../contract';

export const BUNDLE_README_HEADING = '# Offload Studio reproduction bundle';
const RUN_FILES = new Set([
  'ds_config.json',
  'spec.json',
  'run.sh',
  'hostfile',
  'runner-version.txt',
  'samples.csv',
  'launch.txt',
  'accelerate_config.yaml',
  'your_ds_config.json',
  'job.sbatch',
]);

/** Why `folder` is not a previous bundle (null when it is one). */
function notABundle(folder: string): string | null {
  const readme = path.join(folder, 'README.md');
  const stat = fs.lstatSync(readme, { throwIfNoEntry: false });
  if (!stat?.isFile()) return 'it has no bundle README.md';
  const fd = fs.openSync(readme, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  let head: string;
  try {
    const buf = Buffer.alloc(BUNDLE_README_HEADING.length);
    head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
  if (head !== BUNDLE_README_HEADING) return 'its README.md is not a bundle README';
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'README.md') continue;
    if (!entry.isDirectory()) return `it holds '${entry.name}', which a bundle does not`;
    for (const inner of fs.readdirSync(path.join(folder, entry.name), { withFileTypes: true }))
      if (!inner.isFile() || !RUN_FILES.has(inner.name)) return `it holds '${entry.name}/${inner.name}', which a bundle does not`;
  }
  return null;
}

/** Throws bad_path unless `folder` (which exists) is a bundle this app wrote. */
export function assertReplaceableBundle(folder: string): void {
  const stat = fs.lstatSync(folder);
  let why: string | null;
  try {
    why = stat.isSymbolicLink() ? 'it is a symbolic link' : !stat.isDirectory() ? 'it is not a folder' : notABundle(folder);
  } catch (error) {
    why = `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (why)
    throw new ApiError(
      'bad_path',
      `${folder} exists and is not an Offload Studio reproduction bundle; it will not be replaced (${why}). Choose a new folder name, or a .zip.`,
      'path',
    );
}
