// The user's paths on the command line. `npm run cli` runs in the package folder, not where the
// command was typed (npm sets INIT_CWD to that folder), so a relative `--out report.html` would land
// in the checkout. Every path-valued flag and positional is made absolute here, against the user's
// folder, before a command runs; a file the command will read that is not there is refused with
// its flag, the path looked for and the folder relative paths start from (no raw ENOENT).
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../kernel';

/** Where the user typed the command: INIT_CWD under `npm run cli`, else the working directory. */
export function userCwd(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const init = env.INIT_CWD;
  if (env.npm_lifecycle_event === 'cli' && init && path.isAbsolute(init)) {
    try {
      if (fs.statSync(init).isDirectory()) return init;
    } catch {
      // a folder since removed: the working directory it is
    }
  }
  return cwd;
}

/** Flags naming a file or folder the command reads (must exist), per command. */
const INPUT_FLAGS: Record<string, string[]> = {
  plan: ['machine', 'ds-config'],
  measure: ['import', 'machine'],
  run: ['specs', 'python', 'ds-config', 'machine'],
  tune: ['python'],
  cluster: ['spec'],
  'convert-sweep': ['specs', 'snapshot'],
};
/** Flags naming a file or folder the command writes (made absolute only). */
const OUTPUT_FLAGS: Record<string, string[]> = {
  export: ['out'],
  'export-runs': ['out'],
  'convert-sweep': ['out'],
  plan: ['write-configs', 'write-specs', 'export'],
};
/** Commands whose --model is a preset id or a path to a config.json (or a folder holding one). */
const MODEL_COMMANDS = new Set(['plan', 'run', 'tune']);

/** A model value that names a file rather than a preset: ends in .json or holds a path separator. */
const looksLikePath = (v: string) => /\.json$/i.test(v) || v.includes('/') || v.includes('\\') || v.startsWith('.');

function mustExist(flag: string, value: string, file: string, cwd: string): void {
  if (fs.existsSync(file)) return;
  const where = path.isAbsolute(value) ? '' : ` (relative paths start from ${cwd})`;
  throw new UsageError(`${flag} ${value}: no such file or folder: ${file}${where}`);
}

/**
 * The flags and positionals with every path made absolute against `cwd` (the user's folder);
 * throws a UsageError (exit 2) naming the flag when a file to read is missing.
 */
export function resolveUserPaths(
  command: string,
  flags: Record<string, string | boolean>,
  positionals: string[],
  cwd: string = userCwd(),
): { flags: Record<string, string | boolean>; positionals: string[] } {
  const out = { ...flags };
  const abs = (v: string) => path.resolve(cwd, v);
  if (typeof out['data-dir'] === 'string') out['data-dir'] = abs(out['data-dir']);
  for (const name of OUTPUT_FLAGS[command] ?? []) if (typeof out[name] === 'string') out[name] = abs(out[name] as string);
  for (const name of INPUT_FLAGS[command] ?? []) {
    const v = out[name];
    if (typeof v !== 'string') continue;
    out[name] = abs(v);
    mustExist(`--${name}`, v, out[name] as string, cwd);
  }
  if (MODEL_COMMANDS.has(command) && typeof out.model === 'string') {
    const v = out.model;
    const file = abs(v);
    if (fs.existsSync(file)) out.model = file;
    else if (looksLikePath(v)) mustExist('--model', v, file, cwd);
  }
  const pos = [...positionals];
  // import-runs FILE, convert-sweep DIR, cluster save FILE.
  const index = command === 'import-runs' || command === 'convert-sweep' ? 0 : command === 'cluster' && pos[0] === 'save' ? 1 : -1;
  if (index >= 0 && pos[index] !== undefined) {
    const v = pos[index];
    pos[index] = abs(v);
    mustExist(command === 'cluster' ? 'cluster save' : command, v, pos[index], cwd);
  }
  return { flags: out, positionals: pos };
}
