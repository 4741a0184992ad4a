// Builds the N-API addon with node-gyp. Run by `npm install` (root "install" script) and by
// `npm run build:native`. Under `npm install` a missing compiler must not fail the whole
// install: we print what is wrong, exit 0, and the measure service later answers
// "native module not built, run npm run build:native". `--strict` (build:native) fails loudly.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const strict = process.argv.includes('--strict');
const require = createRequire(import.meta.url);

function fail(message) {
  console.error(`\n[offload-studio native] ${message}`);
  console.error('[offload-studio native] host measurements are disabled until `npm run build:native` succeeds.\n');
  process.exit(strict ? 1 : 0);
}

let nodeGyp;
try {
  nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
} catch {
  fail('node-gyp is not installed (it is a devDependency: run npm install without --omit=dev).');
}

// N-API is ABI-stable, so headers of the running Node are enough for Electron too. Use the
// headers that ship next to this Node when present: then no download from nodejs.org is
// needed (machines without internet access build fine).
const args = [nodeGyp, 'rebuild', '--directory', here];
const localHeaders = path.resolve(path.dirname(process.execPath), '..');
if (existsSync(path.join(localHeaders, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${localHeaders}`);

const result = spawnSync(process.execPath, args, { stdio: 'inherit', shell: false });
if (result.error) fail(`could not run node-gyp: ${result.error.message}`);
if (result.status !== 0)
  fail(
    'building the native module failed (a C++20 compiler, make and python3 are needed: on Debian/Ubuntu `apt-get install build-essential python3`).',
  );
console.log('[offload-studio native] built native/build/Release/offload_studio_native.node');
