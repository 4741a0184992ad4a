// Packs the app's own CLI for a GPU host that has Python + torch but no Node and no network (the
// device machine of the team's lease): this Node binary (xz), the CLI bundled into one ESM file with
// every pure-JS dependency inlined, and the one native dependency (@photostructure/sqlite, N-API,
// linux-x64 prebuild only). On the host, scripts/device-cli.sh unpacks it and runs
// `node cli.mjs …` from the checkout, so `tune`, `plan`, `runs` there are the same code as here.
//
//   node scripts/device-cli-pack.mjs device-run/cli      (device-run/ is git-ignored; carry it)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const out = path.resolve(process.argv[2] ?? 'device-run/cli');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

await build({
  entryPoints: [path.join(root, 'electron/cli/main.ts')],
  outfile: path.join(out, 'cli.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // electron and playwright-core are optional at run time (PDF export, the desktop window); the CLI's
  // tune/plan/runs paths never load them.
  external: ['@photostructure/sqlite', 'electron', 'playwright-core'],
  // bundled CommonJS (systeminformation, ws) calls require(): give the ESM bundle one
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});

const sqlite = path.join(root, 'node_modules/@photostructure/sqlite');
const target = path.join(out, 'node_modules/@photostructure/sqlite');
fs.mkdirSync(target, { recursive: true });
fs.cpSync(path.join(sqlite, 'package.json'), path.join(target, 'package.json'));
fs.cpSync(path.join(sqlite, 'dist'), path.join(target, 'dist'), { recursive: true });
fs.cpSync(path.join(sqlite, 'prebuilds/linux-x64'), path.join(target, 'prebuilds/linux-x64'), { recursive: true });
// node-gyp-build (the prebuild loader) is the package's only runtime dependency
for (const dep of Object.keys(JSON.parse(fs.readFileSync(path.join(sqlite, 'package.json'), 'utf8')).dependencies ?? {})) {
  const from = [path.join(sqlite, 'node_modules', dep), path.join(root, 'node_modules', dep)].find((p) => fs.existsSync(p));
  if (from) fs.cpSync(from, path.join(out, 'node_modules', dep), { recursive: true });
}

const xz = path.join(out, 'node.xz');
fs.writeFileSync(xz, execFileSync('xz', ['-T2', '-6', '-c', process.execPath], { maxBuffer: 512 * 1024 * 1024 }));
const size = (p) => {
  const s = fs.statSync(p);
  return s.isDirectory() ? fs.readdirSync(p).reduce((a, f) => a + size(path.join(p, f)), 0) : s.size;
};
console.log(`packed ${out}: ${(size(out) / 2 ** 20).toFixed(1)} MiB (node ${process.version})`);
