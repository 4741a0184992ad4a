// Free space where ZeRO-Infinity's nvme_path would live: statfs of the path (or of its nearest
// existing parent, since the folder may not exist yet), writability, and the block device behind it.
import { constants } from 'node:fs';
import { access, statfs } from 'node:fs/promises';
import path from 'node:path';
import type { DiskFree } from '../../contract';
import { readText } from './exec';

export interface MountEntry {
  mountpoint: string;
  source: string; // /dev/nvme0n1p2, overlay, tmpfs
  fstype: string;
}

/** /proc/self/mountinfo: "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw" */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    // Spaces in paths are escaped as \040.
    const unescape = (s: string) => s.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (left.length < 5 || right.length < 2) continue;
    out.push({ mountpoint: unescape(left[4]), fstype: right[0], source: unescape(right[1]) });
  }
  return out;
}

/** The mount a path lives on: the longest mountpoint that is a prefix (the last one wins on ties). */
export function mountFor(target: string, mounts: MountEntry[]): MountEntry | null {
  let best: MountEntry | null = null;
  for (const m of mounts) {
    const inside = m.mountpoint === '/' || target === m.mountpoint || target.startsWith(m.mountpoint + '/');
    if (inside && (!best || m.mountpoint.length >= best.mountpoint.length)) best = m;
  }
  return best;
}

async function nearestExisting(p: string): Promise<string> {
  let dir = p;
  for (;;) {
    try {
      await access(dir, constants.F_OK);
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return dir;
      dir = parent;
    }
  }
}

export async function diskFree(requested: string): Promise<DiskFree> {
  const resolved = path.resolve(requested.replace(/^~(?=$|\/)/, process.env.HOME ?? '~'));
  const existing = await nearestExisting(resolved);
  const [stats, writable, mountinfo] = await Promise.all([
    statfs(existing),
    access(existing, constants.W_OK).then(
      () => true,
      () => false,
    ),
    readText('/proc/self/mountinfo'),
  ]);
  const mount = mountinfo ? mountFor(existing, parseMountinfo(mountinfo)) : null;
  const device = mount ? mount.source : null;
  return {
    path: resolved,
    // bavail: blocks available to an unprivileged user (bfree includes root's reserve).
    freeBytes: Number(stats.bavail) * Number(stats.bsize),
    totalBytes: Number(stats.blocks) * Number(stats.bsize),
    writable,
    device,
    mountpoint: mount?.mountpoint ?? null,
    isNvme: device ? device.startsWith('/dev/nvme') : null,
    exists: existing === resolved,
  };
}
