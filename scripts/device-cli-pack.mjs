// Packs the app's own CLI for a GPU host that has Python + torch but no Node and no network (the
// device machine of the team's lease): this Node binary (xz), the CLI bundled into one ESM file with
// every pure-JS dependency inlined, and the one native dependency (@photostructure/sqlite, N-API,
// linux-x64 prebuild only), plus this checkout's native measurement module when it is built (N-API,
// x86-64 Linux like the host), so `measure` there measures that host. On the host,
// scripts/device-cli.sh unpacks it and runs `node cli.mjs …` from the checkout, so `detect`,
// `measure`, `tune`, `plan`, `runs` there are the same code as here.
//
//   node scripts/device-cli-pack.mjs device-run/cli      (device-run/ is git-ignored; carry it)
import fs from 'node:fs';
import path from 'node:path';
import { bundleForDevice, copySqlitePrebuild, packNode, repoRoot } from './device-pack-lib.mjs';

const out = path.resolve(process.argv[2] ?? 'device-run/cli');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
await bundleForDevice(path.join(repoRoot, 'electron/cli/main.ts'), out, 'cli.mjs');
copySqlitePrebuild(out);
const native = path.join(repoRoot, 'native/build/Release/offload_studio_native.node');
if (fs.existsSync(native)) fs.copyFileSync(native, path.join(out, 'offload_studio_native.node'));
else console.warn(`no native module at ${native} (npm run build:native): measure will say so on the host`);
packNode(out);
const size = (p) => {
  const s = fs.statSync(p);
  return s.isDirectory() ? fs.readdirSync(p).reduce((a, f) => a + size(path.join(p, f)), 0) : s.size;
};
console.log(`packed ${out}: ${(size(out) / 2 ** 20).toFixed(1)} MiB (node ${process.version})`);
