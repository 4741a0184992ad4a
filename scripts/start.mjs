#!/usr/bin/env node
// `npm start`: builds the app and opens the Electron window — or says plainly why it cannot
// (no display, Electron's binary not downloaded) and points to `npm run serve`, which runs the
// same app headless with the UI in any browser.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serveHint =
  'Run the app headless instead: `npm run serve` prints a URL to open in a browser (over SSH: `ssh -L 8765:127.0.0.1:8765 host`, then `npm run serve -- --port 8765`).';

export function startProblem(env = process.env, platform = process.platform, electronPath = null) {
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return `No display found (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop window cannot open. ${serveHint}`;
  }
  if (!electronPath) {
    return (
      "Electron's binary is not installed: `npm install` could not download it (offline, a proxy, or ELECTRON_SKIP_BINARY_DOWNLOAD was set). " +
      'Run `npm install` again online (or set ELECTRON_MIRROR to a reachable mirror, then `node node_modules/electron/install.js`). ' +
      serveHint
    );
  }
  return null;
}

function electronBinary() {
  try {
    // node_modules/electron's index throws when its binary was never downloaded.
    return createRequire(import.meta.url)('electron');
  } catch {
    return null;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const problem = startProblem(process.env, process.platform, electronBinary());
  if (problem) {
    console.error(`npm start: ${problem}`);
    process.exit(1);
  }
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const child = spawn(electronBinary(), ['.', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
