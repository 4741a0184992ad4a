// Folders the cluster service writes into or runs from. They must be this user's alone: an
// ssh_config planted by another user (a ProxyCommand) runs as us on the next pre-flight, and a
// `deepspeed/` package planted in the launcher's working directory shadows DeepSpeed (python -m
// puts the cwd first on sys.path). So no shared, predictable /tmp name, and every folder we use is
// checked for its owner and its mode rather than accepted because it already exists.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ABSOLUTE_PATH_PATTERN, ApiError } from '../../contract';

const uid = (): number => (typeof process.getuid === 'function' ? process.getuid() : 0);

/**
 * Why `dir` is not safe to use as ours (null when it is): another owner, writable by others, a link.
 * `parent`: an ancestor, which root may own and which may be group-writable (a user-private group's
 * home) or world-writable with the sticky bit (/tmp: others cannot rename what is ours in it).
 */
export function unsafeDirReason(dir: string, options: { parent?: boolean; allowRoot?: boolean } = {}): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return null; // absent: the caller creates it
  }
  const me = uid();
  if (stat.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!stat.isDirectory()) return `${dir} is not a folder`;
  if (process.platform === 'win32') return null;
  if (stat.uid !== me && !((options.parent || options.allowRoot) && stat.uid === 0))
    return `${dir} belongs to another user (uid ${stat.uid})`;
  const writable = options.parent ? stat.mode & 0o002 && !(stat.mode & 0o1000) : stat.mode & 0o022;
  if (writable) return `${dir} is writable by other users (mode ${(stat.mode & 0o7777).toString(8)})`;
  return null;
}

/** The first folder from `dir` up to the root that another user could change or replace, with why. */
export function unsafeAncestorReason(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const why = unsafeDirReason(d, { parent: true });
    if (why) return why;
    if (path.dirname(d) === d) return null;
  }
}

/**
 * Makes `dir` (and missing parents) and checks it is ours: every existing component must be a
 * real folder owned by us (or root) that others cannot write; the folder itself ends 0700.
 */
export function ensurePrivateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const why =
    unsafeAncestorReason(dir) ??
    (fs.lstatSync(dir).uid === uid() || process.platform === 'win32' ? null : `${dir} belongs to another user`);
  if (why) throw new ApiError('unsafe_path', `Refusing to use ${dir}: ${why}. Remove it (or fix its owner and mode), then try again.`);
  if (process.platform !== 'win32') fs.chmodSync(dir, 0o700);
  return dir;
}

/**
 * A folder for a cluster's generated files. `<dataDir>/clusters/<name>` when that path has no space;
 * pdsh splits PDSH_SSH_ARGS on spaces, so for a data folder with one (the default
 * "~/.config/Offload Studio") a private folder made by mkdtemp (random name, 0700, ours) in the temp
 * dir; its path is remembered inside the data folder and reused while it is still ours.
 */
export function privateClusterDir(dataDir: string, name: string): { workDir: string; homeDir: string } {
  const homeDir = ensurePrivateDir(path.join(ensurePrivateDir(path.join(dataDir, 'clusters')), name));
  if (ABSOLUTE_PATH_PATTERN.test(homeDir)) return { workDir: homeDir, homeDir };
  const pointer = path.join(homeDir, 'workdir');
  let remembered: string | null = null;
  try {
    remembered = fs.readFileSync(pointer, 'utf8').trim();
  } catch {
    // first use
  }
  if (remembered && ABSOLUTE_PATH_PATTERN.test(remembered) && fs.existsSync(remembered)) {
    const stat = fs.lstatSync(remembered);
    if (
      !stat.isSymbolicLink() &&
      stat.isDirectory() &&
      stat.uid === uid() &&
      (stat.mode & 0o077) === 0 &&
      !unsafeAncestorReason(remembered)
    )
      return { workDir: remembered, homeDir };
  }
  const base = os.tmpdir();
  const workDir = fs.mkdtempSync(path.join(base, 'offload-studio-cluster-'));
  if (!ABSOLUTE_PATH_PATTERN.test(workDir)) {
    fs.rmSync(workDir, { recursive: true, force: true });
    throw new ApiError(
      'bad_path',
      `The temp folder ${base} has a space or special characters, and pdsh cannot take such a path. Set TMPDIR to a plain path (e.g. /tmp), or use a data folder without spaces (--data-dir).`,
    );
  }
  fs.chmodSync(workDir, 0o700);
  fs.writeFileSync(pointer, workDir + '\n', { mode: 0o600 });
  return { workDir, homeDir };
}

/**
 * Why the launcher must not run from `engineDir` on this machine (null when it may): DeepSpeed's
 * launcher starts as `python -m …` there, so whoever can write that folder (or replace it) chooses
 * the code that runs. It must be ours or root's and writable by nobody else, up to the root.
 */
export function unsafeEngineDirReason(engineDir: string): string | null {
  if (!fs.existsSync(engineDir)) return null;
  return unsafeDirReason(engineDir, { allowRoot: true }) ?? unsafeAncestorReason(path.dirname(engineDir));
}

/**
 * The runner folder used when a cluster names none: in this user's home (the same path on every
 * host for the same user, like the app's engine venvs under ~/.cache/offload-studio), never a
 * shared, predictable /tmp name.
 */
export function defaultEngineDir(home: string = os.homedir()): string {
  return path.join(home, '.cache', 'offload-studio', 'engine');
}
