// Renders resources/icons/icon.svg to the PNG sizes the installers need (16…1024, in
// resources/icons/png/<n>x<n>.png for Linux), icon.png (512, the window icon), and packs icon.icns
// (macOS) and icon.ico (Windows) from those PNGs — both formats accept embedded PNG data, so no
// image library is needed. Needs rsvg-convert (Debian: apt-get install librsvg2-bin).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '..', 'resources', 'icons');
const svg = path.join(dir, 'icon.svg');
const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
fs.mkdirSync(path.join(dir, 'png'), { recursive: true });

const png = {};
for (const n of sizes) {
  const out = path.join(dir, 'png', `${n}x${n}.png`);
  const r = spawnSync('rsvg-convert', ['-w', String(n), '-h', String(n), '-o', out, svg], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    console.error(`rsvg-convert failed (${r.error?.message ?? r.stderr}); install it: apt-get install librsvg2-bin`);
    process.exit(1);
  }
  png[n] = fs.readFileSync(out);
}
fs.copyFileSync(path.join(dir, 'png', '512x512.png'), path.join(dir, 'icon.png'));

// ICNS: 'icns' + total length, then (type, length incl. 8-byte header, PNG data) per entry.
const icnsTypes = { 16: 'icp4', 32: 'icp5', 64: 'icp6', 128: 'ic07', 256: 'ic08', 512: 'ic09', 1024: 'ic10' };
const entries = Object.entries(icnsTypes).map(([n, type]) => {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'ascii');
  head.writeUInt32BE(png[n].length + 8, 4);
  return Buffer.concat([head, png[n]]);
});
const icnsHead = Buffer.alloc(8);
icnsHead.write('icns', 0, 'ascii');
icnsHead.writeUInt32BE(8 + entries.reduce((a, e) => a + e.length, 0), 4);
fs.writeFileSync(path.join(dir, 'icon.icns'), Buffer.concat([icnsHead, ...entries]));

// ICO: ICONDIR, one 16-byte ICONDIRENTRY per image (0 in width/height means 256), then PNG data.
const icoSizes = [16, 24, 32, 48, 64, 128, 256];
const header = Buffer.alloc(6);
header.writeUInt16LE(0, 0);
header.writeUInt16LE(1, 2);
header.writeUInt16LE(icoSizes.length, 4);
let offset = 6 + 16 * icoSizes.length;
const dirEntries = icoSizes.map((n) => {
  const e = Buffer.alloc(16);
  e.writeUInt8(n >= 256 ? 0 : n, 0);
  e.writeUInt8(n >= 256 ? 0 : n, 1);
  e.writeUInt16LE(1, 4); // colour planes
  e.writeUInt16LE(32, 6); // bits per pixel
  e.writeUInt32LE(png[n].length, 8);
  e.writeUInt32LE(offset, 12);
  offset += png[n].length;
  return e;
});
fs.writeFileSync(path.join(dir, 'icon.ico'), Buffer.concat([header, ...dirEntries, ...icoSizes.map((n) => png[n])]));
console.log(`icons: ${sizes.length} PNGs, icon.png, icon.icns, icon.ico in ${path.relative(process.cwd(), dir)}`);
