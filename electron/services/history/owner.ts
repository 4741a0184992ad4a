// Who owns a queued/running row. A run is written 'running' when it starts; if the process that
// runs it dies, the row must not stay 'running' forever — but another live process (the CLI
// while the app is open, two windows) may share the data folder, and its runs must be left alone.
// So each open store stamps its rows with 'host:pid:token' and start-up recovery only takes over
// rows whose owner is provably gone.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/** Tokens of the stores open in this process (a store reopened in the same process must still
 *  recover rows of a store that was abandoned without close()). */
const liveTokens = new Set<string>();

/** Which incarnation of `pid` this is: boot id + the process start time (Linux /proc). A pid
 *  alive after a reboot, or reused by another process, has a different one. null elsewhere. */
function incarnation(pid: number): string | null {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]; // field 22: starttime
    return crypto.createHash('sha256').update(`${boot}/${startTime}`).digest('hex').slice(0, 8);
  } catch {
    return null;
  }
}

export function newOwner(): { owner: string; release(): void } {
  const random = crypto.randomBytes(6).toString('hex');
  const self = incarnation(process.pid);
  // 'random-incarnation' (Linux) or 'random': older rows carry the plain form and still parse.
  const token = self ? `${random}-${self}` : random;
  liveTokens.add(token);
  return { owner: `${os.hostname()}:${process.pid}:${token}`, release: () => liveTokens.delete(token) };
}

/** Forget a token without closing its store: what a crash looks like to the rest of this process. */
export function abandonOwner(owner: string): void {
  liveTokens.delete(owner.split(':').pop() ?? '');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the owner of a row may still be running it. Rows of another host are left alone
 *  (we cannot see its processes); rows without an owner are orphans. */
export function ownerAlive(owner: string | null): boolean {
  if (!owner) return false;
  const parts = owner.split(':');
  if (parts.length < 3) return false;
  const token = parts.pop()!;
  const pid = Number(parts.pop());
  const host = parts.join(':');
  if (host !== os.hostname()) return true;
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return liveTokens.has(token);
  if (!processAlive(pid)) return false;
  // Alive, but is it the same process? (After a reboot the pid may be anyone's.)
  const recorded = token.includes('-') ? token.split('-').pop()! : null;
  const now = recorded ? incarnation(pid) : null;
  return !(recorded && now && recorded !== now);
}
