// The reproduction bundle as a .zip, written by fflate (a kept, dependency-free ZIP/DEFLATE
// library) instead of our own headers and CRC table. What stays ours is the policy: safe relative
// names only, no duplicate names, unix mode bits kept (run.sh stays executable after unzip),
// entries stored when DEFLATE would not make them smaller.
import { deflateSync, zipSync, type Zippable } from 'fflate';

export interface ZipEntry {
  name: string; // forward slashes, relative
  data: Buffer | string;
  mode?: number; // unix permission bits (0o755 for run.sh)
}

const UNIX = 3; // APPNOTE 4.4.2.2 "version made by": unix, so unzip applies the mode bits

export function buildZip(entries: ZipEntry[], when = new Date()): Buffer {
  if (entries.length > 0xffff) throw new Error('too many entries for a ZIP without ZIP64');
  const files: Zippable = {};
  for (const entry of entries) {
    if (entry.name.startsWith('/') || entry.name.split('/').includes('..')) throw new Error(`unsafe zip entry name ${entry.name}`);
    if (Object.hasOwn(files, entry.name)) throw new Error(`duplicate zip entry name ${entry.name}`);
    const data =
      typeof entry.data === 'string'
        ? new TextEncoder().encode(entry.data)
        : new Uint8Array(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength);
    const level = deflateSync(data, { level: 9 }).length < data.length ? 9 : 0;
    // External attributes: regular file (0o100000) + permission bits in the high 16 bits.
    files[entry.name] = [data, { level, mtime: when, os: UNIX, attrs: (((entry.mode ?? 0o644) | 0o100000) << 16) >>> 0 }];
  }
  const zip = zipSync(files);
  if (zip.length > 0xffffffff) throw new Error('archive over 4 GiB needs ZIP64');
  return Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
}
