#!/usr/bin/env node
// Builds the renderer when it is missing or older than its sources, so `npm run serve` works
// straight after `npm install` (serve runs from source through tsx but serves the built
// renderer). Quiet when the build is current.
//
//   node scripts/ensure-built.mjs
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist', 'renderer', 'index.html');
// The renderer bundle is made of these (it imports the contract, and the contract's chart builders).
const sources = ['renderer', 'electron/contract', 'vite.config.ts', 'package.json'].map((p) => path.join(root, p));

function newestMtime(p) {
  const info = statSync(p, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of readdirSync(p)) if (name !== 'node_modules') newest = Math.max(newest, newestMtime(path.join(p, name)));
  return newest;
}

const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
const sourcesAt = Math.max(...sources.map(newestMtime));
if (builtAt >= sourcesAt) process.exit(0);

console.error(
  builtAt ? 'serve: the renderer is older than its sources; rebuilding (vite)…' : 'serve: building the renderer (first start, vite)…',
);
const started = Date.now();
const { build } = await import('vite');
await build({ root: path.join(root, 'renderer'), configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
console.error(`serve: renderer built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
