#!/usr/bin/env node
// `npm run serve`: build the renderer if needed, then the server in THIS process (tsx registered
// in-process: no tsx wrapper process whose child a signal would not reach).
//
// npm runs a script through `sh -c`, and dash does not exec it: a SIGTERM to npm reaches sh, which
// dies and leaves its child behind. So this process watches its parent: re-parented (sh or npm
// gone) → it stops as on SIGTERM, ending its runners. (Only here: `offload-studio serve` run
// under nohup/disown keeps running.)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

// A --token in our arguments is readable in /proc/<pid>/cmdline: overwritten before anything else
// (the build check below can take minutes). electron/server/cli-entry.ts does the same.
if (process.argv.some((a) => a === '--token' || a.startsWith('--token='))) process.title = 'offload-studio serve';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [path.join(root, 'scripts', 'ensure-built.mjs')], { stdio: 'inherit' });
register();
if (process.platform !== 'win32') {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}
await import(pathToFileURL(path.join(root, 'electron', 'server', 'cli-entry.ts')).href);
