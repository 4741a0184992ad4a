// Runners whose app is gone, and the one-sweep-per-data-folder lock.
//
// A runner is started detached (its own process group) so a cancel reaches every rank; the price
// is that it outlives an app that dies without cancelling it (SIGKILL, a crash, an SSH session
// drop before SIGHUP was handled). Start-up recovery marks such a run 'interrupted'; this module
// ends its runner too, found by the spec file on its command line (`--spec <dataDir>/specs/<run>.json`,
// the same for the deepspeed launcher and its ranks), so a restarted app never measures beside it.
//
// Two processes on one data folder (serve and the CLI, two serves) must not run two sweeps at once
// either: they would measure each other. `<dataDir>/sweep.lock` names the process running a sweep;
// a lock whose owner is gone is stale and taken over (its runners ended first).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../contract';
import { tempNameBeside, writeFileAtomic } from '../../kernel';
import { ownerAlive } from '../history';

/** The spec file a run's runner is started with (sweep.ts writes it there). */
export const specFileOf = (dataDir: string, runId: string) => path.join(dataDir, 'specs', `${runId}.json`);

/** Pids (this user's, Linux /proc) whose command line holds one of `specFiles` as a whole argument. */
function runnerPids(specFiles: Set<string>): { pid: number; pgid: number }[] {
  const found: { pid: number; pgid: number }[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return found; // no /proc (macOS, Windows): the runner's own parent watchdog is the only guard
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args.some((a) => specFiles.has(a))) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]); // field 5: pgrp
      found.push({ pid: Number(entry), pgid });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Ends the runners still alive for `runIds` (runs whose app is gone): SIGKILL to each runner's
 * process group (its own, as started) or to the process alone. Returns the pids signalled.
 */
export function endOrphanRunners(dataDir: string, runIds: readonly string[]): number[] {
  if (runIds.length === 0) return [];
  const specFiles = new Set(runIds.map((id) => specFileOf(dataDir, id)));
  const ended: number[] = [];
  for (const { pid, pgid } of runnerPids(specFiles)) {
    try {
      // A detached runner leads its group; never signal a group we share (ours, a shell's).
      if (pgid === pid && pgid !== process.pid) process.kill(-pgid, 'SIGKILL');
      else process.kill(pid, 'SIGKILL');
      ended.push(pid);
    } catch {
      // already gone, or another user's (EPERM): nothing we may do
    }
  }
  return ended;
}

interface LockBody {
  owner: string;
  pid: number;
  sweepId: string | null;
  runIds: string[];
  since: string;
}

const lockPath = (dataDir: string) => path.join(dataDir, 'sweep.lock');

function readLock(file: string): LockBody | null {
  try {
    const body = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockBody>;
    if (typeof body.owner !== 'string') return null;
    return {
      owner: body.owner,
      pid: Number(body.pid),
      sweepId: typeof body.sweepId === 'string' ? body.sweepId : null,
      runIds: Array.isArray(body.runIds) ? body.runIds.filter((x): x is string => typeof x === 'string') : [],
      since: String(body.since ?? ''),
    };
  } catch {
    return null; // unreadable or half-written: treated as stale
  }
}

function busy(body: LockBody): ApiError {
  return new ApiError(
    'engine_busy',
    `Another Offload Studio process (pid ${body.pid}) is running a sweep${body.sweepId ? ` (${body.sweepId})` : ''} on this data folder since ${body.since}; two sweeps at once would measure each other. Wait for it, cancel it there, or stop that process.`,
  );
}

/** Ends the runners of a stale lock (its owner is gone) and removes it. Call at start-up. */
export function clearStaleLock(dataDir: string): number[] {
  const file = lockPath(dataDir);
  const body = readLock(file);
  if (!fs.existsSync(file) || (body && ownerAlive(body.owner))) return [];
  const ended = body ? endOrphanRunners(dataDir, body.runIds) : [];
  fs.rmSync(file, { force: true });
  return ended;
}

export interface SweepLock {
  /** Records the sweep's runs (so a successor can end their runners if this process dies). */
  update(sweepId: string, runIds: string[]): void;
  release(): void;
}

/** Takes the data folder's sweep lock for `owner`, or throws engine_busy naming the holder. */
export function acquireSweepLock(dataDir: string, owner: string): SweepLock {
  const file = lockPath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const write = (body: LockBody) => {
    // Written beside, then linked into place: link() fails if the lock exists (atomic, no half file).
    const temp = tempNameBeside(file);
    try {
      fs.writeFileSync(temp, JSON.stringify(body), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      // 'wx' creates the file before the write fails (ENOSPC on a full disk): without this every
      // runs/start there left a 0-byte temp behind. EEXIST is another's file of that name: kept.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') fs.rmSync(temp, { force: true });
      throw error;
    }
    return temp;
  };
  const body: LockBody = { owner, pid: process.pid, sweepId: null, runIds: [], since: new Date().toISOString() };
  const temp = write(body);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(temp, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw error;
      }
      const held = readLock(file);
      if (held && ownerAlive(held.owner)) throw busy(held);
      // Stale: move it aside (only one contender's rename succeeds), end its runners, try again.
      const aside = `${file}.${crypto.randomBytes(6).toString('hex')}.stale`;
      try {
        fs.renameSync(file, aside);
      } catch {
        continue;
      }
      const moved = readLock(aside);
      if (moved && ownerAlive(moved.owner)) {
        // A contender took it over between our read and our rename: give it back.
        fs.renameSync(aside, file);
        throw busy(moved);
      }
      if (moved) endOrphanRunners(dataDir, moved.runIds);
      fs.rmSync(aside, { force: true });
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
  let released = false;
  return {
    update(sweepId, runIds) {
      if (released) return;
      body.sweepId = sweepId;
      body.runIds = runIds;
      try {
        writeFileAtomic(file, JSON.stringify(body), { mode: 0o600 });
      } catch {
        // the lock still holds the folder; only a successor's clean-up would miss these runs
      }
    },
    release() {
      if (released) return;
      released = true;
      const held = readLock(file);
      if (held?.owner === owner) fs.rmSync(file, { force: true });
    },
  };
}
