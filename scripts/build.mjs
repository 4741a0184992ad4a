// Builds everything the app needs: the renderer (Vite) and the Electron main, utility-process
// and preload bundles (esbuild). serve and cli run from source through tsx.
import { build as viteBuild } from 'vite';
import { build } from 'esbuild';

// playwright-core: only serve and the CLI print through it (the desktop app prints in its main process).
const external = ['electron', '@photostructure/sqlite', 'systeminformation', 'ws', 'playwright-core'];
await viteBuild({ configFile: 'vite.config.ts', logLevel: 'warn' });
await Promise.all([
  build({ entryPoints: ['electron/main/main.ts'], outfile: 'dist/main/main.cjs', bundle: true, platform: 'node', format: 'cjs', target: 'node20', external, logLevel: 'warning' }),
  build({ entryPoints: ['electron/main/backend-host.ts'], outfile: 'dist/main/backend-host.cjs', bundle: true, platform: 'node', format: 'cjs', target: 'node20', external, logLevel: 'warning', define: { 'import.meta.url': 'undefined' } }),
  build({ entryPoints: ['electron/preload/preload.ts'], outfile: 'dist/preload/preload.cjs', bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['electron'], logLevel: 'warning' }),
]);
console.log('built dist/renderer, dist/main, dist/preload');
