// `npm run dist` (installers) and `npm run dist:dir` (the unpacked app folder only).
// Builds the bundles and icons, then runs electron-builder for Linux (AppImage + deb, x64 + arm64)
// with electron-builder.yml. electron-builder downloads Electron unless it is given one:
// OFFLOAD_STUDIO_ELECTRON_DIST=/path/to/unpacked/electron (the folder holding the `electron`
// binary, e.g. an extracted electron-v41.x-linux-x64.zip) is passed as electronDist.
//   node scripts/dist.mjs [--dir] [--x64|--arm64] [--mac|--win] [extra electron-builder args]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const step = (name, cmd, args, env = process.env) => {
  console.log(`dist: ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, shell: false });
  if (r.status !== 0) {
    console.error(`dist: ${name} failed (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(r.status || 1);
  }
};

if (!argv.includes('--skip-build')) step('build', process.execPath, ['scripts/build.mjs']);
if (!fs.existsSync(path.join(root, 'resources/icons/icon.icns')) || argv.includes('--icons'))
  step('icons', process.execPath, ['scripts/dist-icons.mjs']);

const platform = argv.includes('--mac') ? ['--mac'] : argv.includes('--win') ? ['--win'] : ['--linux'];
const args = ['--config', 'electron-builder.yml', ...platform, '--publish', 'never'];
if (argv.includes('--dir')) args.push('--dir');
for (const arch of ['--x64', '--arm64']) if (argv.includes(arch)) args.push(arch);
const electronDist = process.env.OFFLOAD_STUDIO_ELECTRON_DIST;
if (electronDist) {
  if (!fs.existsSync(electronDist)) {
    console.error(`dist: OFFLOAD_STUDIO_ELECTRON_DIST=${electronDist} does not exist`);
    process.exit(2);
  }
  args.push(`-c.electronDist=${path.resolve(electronDist)}`);
}
const passThrough = argv.filter((a) => !['--dir', '--x64', '--arm64', '--mac', '--win', '--skip-build', '--icons'].includes(a));
step('electron-builder', path.join(root, 'node_modules/.bin/electron-builder'), [...args, ...passThrough]);
