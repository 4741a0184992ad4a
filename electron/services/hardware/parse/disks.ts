// Pure parser for `lsblk -J -b -o NAME,MODEL,TRAN,SIZE,ROTA,MOUNTPOINTS,TYPE`.
import type { Disk } from '../../../contract';

interface LsblkDevice {
  name?: string;
  model?: string | null;
  tran?: string | null;
  size?: number | string | null;
  rota?: boolean | string | number | null;
  type?: string;
  mountpoint?: string | null; // util-linux < 2.37
  mountpoints?: (string | null)[]; // util-linux ≥ 2.37
  children?: LsblkDevice[];
}

function mounts(d: LsblkDevice): string[] {
  const own = [...(d.mountpoints ?? []), d.mountpoint ?? null].filter((m): m is string => typeof m === 'string' && m !== '');
  return [...own, ...(d.children ?? []).flatMap(mounts)];
}

function bool(v: LsblkDevice['rota']): boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v;
  return String(v) === '1' || String(v) === 'true';
}

/** Whole disks only (partitions contribute their mountpoints); zram/loop devices are not storage. */
export function parseLsblk(text: string): Disk[] {
  const doc = JSON.parse(text) as { blockdevices?: LsblkDevice[] };
  return (doc.blockdevices ?? [])
    .filter((d) => d.type === 'disk' && d.name && !/^(zram|loop|ram)\d*/.test(d.name))
    .map((d) => {
      const name = d.name as string;
      const transport = d.tran ?? null;
      return {
        name,
        model: d.model?.trim() || null,
        transport,
        sizeBytes: Number(d.size ?? 0),
        rotational: bool(d.rota),
        mountpoints: [...new Set(mounts(d))],
        isNvme: transport === 'nvme' || name.startsWith('nvme'),
      };
    });
}
