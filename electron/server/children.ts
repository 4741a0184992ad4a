// Every process `serve` started, found from the process table (not from what each service thinks
// it started): the last sweep on stop, so nothing (a runner, a deepspeed rank, pip, Chromium, a
// grandchild that left its group) outlives the server. Linux reads /proc; macOS asks `ps`. Windows
// has no cheap parent table from Node: there each service ends its own tree (runner-process.ts:
// taskkill /T /F).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

function parentTable(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  const add = (pid: number, ppid: number) => children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  if (process.platform === 'linux') {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        add(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone meanwhile
      }
    }
  } else if (process.platform !== 'win32') {
    const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 5000 });
    for (const line of out.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid && ppid) add(pid, ppid);
    }
  }
  return children;
}

/** Pids below `pid` (children first, then theirs). Empty on Windows. */
export function descendantsOf(pid: number): number[] {
  let table: Map<number, number[]>;
  try {
    table = parentTable();
  } catch {
    return [];
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of table.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** SIGKILL every process below this one (and their process groups). Returns how many were signalled. */
export function killDescendants(): number {
  const pids = descendantsOf(process.pid);
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL'); // its group, when it leads one (runner, pip: detached)
    } catch {
      // not a group leader
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  return pids.length;
}
