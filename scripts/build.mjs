// Builds everything the app needs: the renderer (Vite) and the Electron main, utility-process
// and preload bundles (esbuild). serve and cli run from source through tsx.
import { build as viteBuild } from 'vite';
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

// playwright-core: only serve and the CLI print through it (the desktop app prints in its main process).
const external = ['electron', '@photostructure/sqlite', 'systeminformation', 'ws', 'playwright-core'];
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
await Promise.all([
  build({
    entryPoints: ['electron/main/main.ts'],
    outfile: 'dist/main/main.cjs',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    logLevel: 'warning',
  }),
  build({
    entryPoints: ['electron/main/backend-host.ts'],
    outfile: 'dist/main/backend-host.cjs',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    logLevel: 'warning',
    define: { 'import.meta.url': 'undefined' },
  }),
  build({
    entryPoints: ['electron/preload/preload.ts'],
    outfile: 'dist/preload/preload.cjs',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    logLevel: 'warning',
  }),
  // serve and the CLI as plain-Node bundles: they start in a fraction of tsx's time (which
  // transpiles every source file on each start). npm run serve/cli still run from source.
  // dist/cli/cli.mjs is package.json's `bin` (offload-studio): `npx offload-studio serve` after a build.
  ...[
    ['electron/server/cli-entry.ts', 'dist/server/serve.mjs'],
    ['electron/cli/main.ts', 'dist/cli/cli.mjs'],
  ].map(([entry, outfile]) =>
    build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
      banner: { js: '#!/usr/bin/env node' },
    }).then(() => chmodSync(outfile, 0o755)),
  ),
]);
console.log('built dist/renderer, dist/main, dist/preload, dist/server, dist/cli');
