// What every pack for the device host needs (a GPU host with Python but no Node and no network):
// a one-file ESM bundle of an entry, @photostructure/sqlite's linux-x64 prebuild beside it, and this
// Node binary (xz). Used by device-cli-pack.mjs (the CLI) and server-load-pack.mjs (the load bench).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** Bundle `entry` into `out/file`: every pure-JS dependency inlined; the native SQLite, electron and playwright left out. */
export function bundleForDevice(entry, out, file) {
  return build({
    entryPoints: [entry],
    outfile: path.join(out, file),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // electron and playwright-core are optional at run time (the desktop window, PDF export)
    external: ['@photostructure/sqlite', 'electron', 'playwright-core'],
    // bundled CommonJS (systeminformation, ws) calls require(): give the ESM bundle one
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
}

/** @photostructure/sqlite (N-API: one build for any Node) with only its linux-x64 prebuild, and its runtime dependencies. */
export function copySqlitePrebuild(out) {
  const sqlite = path.join(repoRoot, 'node_modules/@photostructure/sqlite');
  const target = path.join(out, 'node_modules/@photostructure/sqlite');
  fs.mkdirSync(target, { recursive: true });
  fs.cpSync(path.join(sqlite, 'package.json'), path.join(target, 'package.json'));
  fs.cpSync(path.join(sqlite, 'dist'), path.join(target, 'dist'), { recursive: true });
  fs.cpSync(path.join(sqlite, 'prebuilds/linux-x64'), path.join(target, 'prebuilds/linux-x64'), { recursive: true });
  for (const dep of Object.keys(JSON.parse(fs.readFileSync(path.join(sqlite, 'package.json'), 'utf8')).dependencies ?? {})) {
    const from = [path.join(sqlite, 'node_modules', dep), path.join(repoRoot, 'node_modules', dep)].find((p) => fs.existsSync(p));
    if (from) fs.cpSync(from, path.join(out, 'node_modules', dep), { recursive: true });
  }
}

/** This Node binary, xz-compressed (about 24 MB of the 64 MiB a device call may carry). */
export function packNode(out) {
  fs.writeFileSync(path.join(out, 'node.xz'), execFileSync('xz', ['-T2', '-6', '-c', process.execPath], { maxBuffer: 512 * 1024 * 1024 }));
}
