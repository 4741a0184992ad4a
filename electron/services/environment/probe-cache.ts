// Probe answers kept between visits: probing 14 interpreters takes 8–10 s, too long for every Setup visit.
// Each answer is kept with a fingerprint of what it depends on: the interpreter file (its link and
// target: path, size, mtime, inode), its environment's pyvenv.cfg, the engine venv's marker, and
// package folders (site-packages / dist-packages: their mtime and their entries, which change when
// pip adds or removes a package), the user's site-packages, the probe script, and the environment variables the probe reads. A changed
// fingerprint, an answer older than maxAgeMs, or `fresh` (the Re-check button) probes again. A probe
// that timed out is not kept (it says nothing lasting about the interpreter). With `file` (the
// backend's <dataDir>/probe-cache.json) the answers also outlive a restart of the app or `serve`;
// a file that is unreadable or malformed is ignored, entry by entry.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InterpreterProbeSchema, type InterpreterProbe } from '../../contract';
import { writeJsonAtomic } from '../../kernel';
import { MARKER_FILE } from './install';

export interface ProbeCacheOptions {
  /** Answers older than this are probed again even with an unchanged fingerprint (default 6 h). */
  maxAgeMs?: number;
  home?: string;
  env?: NodeJS.ProcessEnv;
  /** The probe script (its mtime is part of every fingerprint). */
  script?: string;
  now?: () => number;
  /** Keep the answers in this JSON file too (read once, rewritten after each new probe). */
  file?: string;
}

type Entry = { fingerprint: string; at: number; probe: InterpreterProbe };

function readEntries(file: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return out; // none yet, or unreadable: probe anew
  }
  const entries =
    parsed && typeof parsed === 'object' && (parsed as { version?: unknown }).version === 1
      ? (parsed as { entries?: unknown }).entries
      : null;
  if (!entries || typeof entries !== 'object') return out;
  for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
    const e = value as Partial<Entry> | null;
    const probe = InterpreterProbeSchema.safeParse(e?.probe);
    if (e && typeof e.fingerprint === 'string' && typeof e.at === 'number' && Number.isFinite(e.at) && probe.success)
      out.set(key, { fingerprint: e.fingerprint, at: e.at, probe: probe.data });
  }
  return out;
}

export interface ProbeCache {
  /** The kept answer when its fingerprint still holds, else a new probe (kept unless it timed out). */
  get(
    pythonPath: string,
    probe: () => Promise<InterpreterProbe>,
    options?: { fresh?: boolean },
  ): Promise<InterpreterProbe & { cachedAt?: string }>;
  /** Forget one interpreter (after an install into it) or all. */
  invalidate(pythonPath?: string): void;
  /** How many answers came from the cache / were probed, since creation. */
  stats(): { hits: number; probes: number };
}

async function statLine(file: string, follow = true): Promise<string> {
  try {
    const s = follow ? await stat(file) : await lstat(file);
    return `${file}:${s.size}:${Math.round(s.mtimeMs)}:${s.ino}`;
  } catch {
    return `${file}:-`;
  }
}

/**
 * A package folder's entries (names), hashed: a package installed or removed changes them whatever
 * the folder's mtime says. The mtime alone let a probe answer outlive an install — Setup kept
 * showing the script's new venv without torch and DeepSpeed until Re-check — where a folder's time
 * is coarse or cached (network and shared folders, some VM file systems) or is put back (a copy or
 * sync that keeps times).
 */
async function entriesLine(dir: string): Promise<string> {
  try {
    const names = (await readdir(dir)).sort();
    return `${dir}:entries:${names.length}:${createHash('sha256').update(names.join('\n')).digest('hex').slice(0, 16)}`;
  } catch {
    return `${dir}:entries:-`;
  }
}

/** Package folders of a Python prefix: lib/python3.X/{site,dist}-packages, lib/python3/dist-packages, local/lib/…. */
async function packageDirs(prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const lib of [path.join(prefix, 'lib'), path.join(prefix, 'local', 'lib'), path.join(prefix, 'Lib')]) {
    let names: string[];
    try {
      names = (await readdir(lib)).filter((n) => /^python\d/.test(n) || n === 'site-packages');
    } catch {
      continue;
    }
    for (const n of names.sort()) {
      if (n === 'site-packages') out.push(path.join(lib, n));
      else out.push(path.join(lib, n, 'site-packages'), path.join(lib, n, 'dist-packages'));
    }
  }
  return out;
}

/** What a probe's answer depends on, as one string: equal strings, same answer. */
export async function interpreterFingerprint(
  pythonPath: string,
  options: Pick<ProbeCacheOptions, 'home' | 'env' | 'script'> = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const file = path.resolve(pythonPath);
  const prefix = path.dirname(path.dirname(file)); // <prefix>/bin/python3
  const userLib = path.join(options.home ?? os.homedir(), '.local', 'lib');
  let userSites: string[] = [];
  try {
    userSites = (await readdir(userLib))
      .filter((n) => /^python\d/.test(n))
      .sort()
      .map((n) => path.join(userLib, n, 'site-packages'));
  } catch {
    // no user site-packages
  }
  // The engine venv's marker too: the setup script and the app's installer write it last, when
  // torch, DeepSpeed and the op pre-build are all in place.
  const files = [
    await statLine(file, false),
    await statLine(file),
    await statLine(path.join(prefix, 'pyvenv.cfg')),
    await statLine(path.join(prefix, MARKER_FILE)),
  ];
  for (const dir of [...(await packageDirs(prefix)), ...userSites]) {
    const line = await statLine(dir);
    if (!line.endsWith(':-')) files.push(line, await entriesLine(dir));
  }
  if (options.script) files.push(await statLine(options.script));
  const vars = ['PYTHONPATH', 'PYTHONHOME', 'PYTHONUSERBASE', 'CUDA_VISIBLE_DEVICES', 'LD_LIBRARY_PATH', 'VIRTUAL_ENV', 'CONDA_PREFIX'].map(
    (k) => `${k}=${env[k] ?? ''}`,
  );
  return [...files, ...vars].join('\n');
}

export function createProbeCache(options: ProbeCacheOptions = {}): ProbeCache {
  const maxAgeMs = options.maxAgeMs ?? 6 * 3600_000;
  const now = options.now ?? Date.now;
  const kept: Map<string, Entry> = options.file ? readEntries(options.file) : new Map<string, Entry>();
  let hits = 0;
  let probes = 0;
  const save = () => {
    if (!options.file) return;
    try {
      writeJsonAtomic(options.file, { version: 1, entries: Object.fromEntries(kept) });
    } catch {
      // a read-only or full data folder: the answers are kept in memory only
    }
  };
  return {
    async get(pythonPath, probe, { fresh = false } = {}) {
      const key = path.resolve(pythonPath);
      const fingerprint = await interpreterFingerprint(key, options);
      const entry = kept.get(key);
      if (!fresh && entry && entry.fingerprint === fingerprint && now() - entry.at <= maxAgeMs) {
        hits++;
        return { ...entry.probe, cachedAt: new Date(entry.at).toISOString() };
      }
      probes++;
      const answer = await probe();
      if (/timed out/.test(answer.error ?? '')) kept.delete(key);
      // Fingerprinted before the probe ran: a change during the probe shows as a change next time.
      else kept.set(key, { fingerprint, at: now(), probe: answer });
      save();
      return answer;
    },
    invalidate(pythonPath) {
      if (pythonPath === undefined) kept.clear();
      else kept.delete(path.resolve(pythonPath));
      save();
    },
    stats: () => ({ hits, probes }),
  };
}
