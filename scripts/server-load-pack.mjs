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
import fs from 'node:fs';
import path from 'node:path';
import { bundleForDevice, copySqlitePrebuild, packNode, repoRoot as root } from './device-pack-lib.mjs';

const args = process.argv.slice(2);
const beforeAt = args.indexOf('--before');
const before = beforeAt >= 0 ? path.resolve(args[beforeAt + 1]) : null;
const out = path.resolve(args.find((a, i) => !a.startsWith('--') && (beforeAt < 0 || i !== beforeAt + 1)) ?? 'device-run/load');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const bundle = (entry, file) => bundleForDevice(entry, out, file);
await bundle(path.join(root, 'bench/server-load.ts'), 'bench.mjs');
await bundle(path.join(root, 'electron/server/cli-entry.ts'), 'serve.mjs');
if (before) await bundle(path.join(before, 'electron/server/cli-entry.ts'), 'serve-before.mjs');
// history-synthetic.ts runs its own main when it is the entry file; in one bundle it would be: enter through a shim.
fs.writeFileSync(path.join(out, 'run.mjs'), "import './bench.mjs';\n");

copySqlitePrebuild(out);
packNode(out);

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
