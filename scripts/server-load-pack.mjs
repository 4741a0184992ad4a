// Packs bench/server-load.ts for a machine without Node or node_modules (the team's device host:
// 16 cores nobody else uses, where the bench's 200 clients do not starve serve of CPU as they do on
// the 2-core dev box): this Node binary (xz), the bench and serve each bundled into one ESM file,
// @photostructure/sqlite's linux-x64 prebuild, and go.sh. `--before DIR` also bundles the serve of
// another checkout (e.g. `git archive <rev> | tar -x -C DIR` with node_modules linked) as
// serve-before.mjs, run by go.sh after this checkout's.
//
//   node scripts/server-load-pack.mjs device-run/load [--before /tmp/base]
//   # on the host, from the checkout, with device-run/load and dist/renderer carried along:
//   bash device-run/load/go.sh
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const beforeAt = args.indexOf('--before');
const before = beforeAt >= 0 ? path.resolve(args[beforeAt + 1]) : null;
const out = path.resolve(args.find((a, i) => !a.startsWith('--') && i !== beforeAt + 1) ?? 'device-run/load');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const bundle = (entry, file) =>
  build({
    entryPoints: [entry],
    outfile: path.join(out, file),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@photostructure/sqlite', 'electron', 'playwright-core'],
    // bundled CommonJS (ws, systeminformation) calls require(): give the ESM bundle one
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
await bundle(path.join(root, 'bench/server-load.ts'), 'bench.mjs');
await bundle(path.join(root, 'electron/server/cli-entry.ts'), 'serve.mjs');
if (before) await bundle(path.join(before, 'electron/server/cli-entry.ts'), 'serve-before.mjs');
// history-synthetic.ts runs its own main when it is the entry file; in one bundle it would be: enter through a shim.
fs.writeFileSync(path.join(out, 'run.mjs'), "import './bench.mjs';\n");

const sqlite = path.join(root, 'node_modules/@photostructure/sqlite');
const target = path.join(out, 'node_modules/@photostructure/sqlite');
fs.mkdirSync(target, { recursive: true });
fs.cpSync(path.join(sqlite, 'package.json'), path.join(target, 'package.json'));
fs.cpSync(path.join(sqlite, 'dist'), path.join(target, 'dist'), { recursive: true });
fs.cpSync(path.join(sqlite, 'prebuilds/linux-x64'), path.join(target, 'prebuilds/linux-x64'), { recursive: true });
for (const dep of Object.keys(JSON.parse(fs.readFileSync(path.join(sqlite, 'package.json'), 'utf8')).dependencies ?? {})) {
  const from = [path.join(sqlite, 'node_modules', dep), path.join(root, 'node_modules', dep)].find((p) => fs.existsSync(p));
  if (from) fs.cpSync(from, path.join(out, 'node_modules', dep), { recursive: true });
}
fs.writeFileSync(path.join(out, 'node.xz'), execFileSync('xz', ['-T2', '-6', '-c', process.execPath], { maxBuffer: 512 * 1024 * 1024 }));

const rel = path.relative(root, out);
fs.writeFileSync(
  path.join(out, 'go.sh'),
  `#!/bin/bash
# bench/server-load.ts with bundled serves (scripts/server-load-pack.mjs); run from the checkout.
set -u
xz -dc ${rel}/node.xz > /tmp/node && chmod +x /tmp/node
nproc; uptime
export BENCH_ROOT=$PWD
for i in 1 2; do BENCH_SERVE_ENTRY=${rel}/serve.mjs /tmp/node ${rel}/run.mjs "$@" 2>&1 | grep -v '^BENCH' | sed "s/^/after#$i /"; done
BENCH_SERVE_ENTRY=${rel}/serve.mjs /tmp/node ${rel}/run.mjs --clients 50 2>&1 | grep -v '^BENCH' | sed "s/^/after-50 /"
if [ -f ${rel}/serve-before.mjs ]; then BENCH_SERVE_ENTRY=${rel}/serve-before.mjs /tmp/node ${rel}/run.mjs "$@" 2>&1 | grep -v '^BENCH' | sed "s/^/before /"; fi
`,
  { mode: 0o755 },
);
const size = (p) => (fs.statSync(p).isDirectory() ? fs.readdirSync(p).reduce((a, f) => a + size(path.join(p, f)), 0) : fs.statSync(p).size);
console.log(`packed ${out}: ${(size(out) / 2 ** 20).toFixed(1)} MiB (node ${process.version}); carry it and dist/renderer`);
