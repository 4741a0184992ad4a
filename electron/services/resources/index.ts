// Where the bundled resources (resources/engine, resources/presets, resources/samples) are.
// Packaged app: Electron main passes OFFLOAD_STUDIO_RESOURCES = process.resourcesPath (they are
// extraResources, outside app.asar, because an external Python cannot read inside the asar).
// Source tree (tests, serve, cli): found by walking up from the working directory, this file and
// the running script.
import fs from 'node:fs';
import path from 'node:path';

let cached: string | null = null;

function looksLikeResources(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'engine')) || fs.existsSync(path.join(dir, 'presets'));
}

function realDir(file: string): string | null {
  try {
    return path.dirname(fs.realpathSync(file));
  } catch {
    return null;
  }
}

export function resourcesDir(): string {
  if (cached) return cached;
  const fromEnv = process.env.OFFLOAD_STUDIO_RESOURCES;
  if (fromEnv && looksLikeResources(fromEnv)) return (cached = fromEnv);
  // The running script too: `npx offload-studio` runs dist/cli/cli.mjs (an ESM bundle: no
  // __dirname) through a .bin symlink, from any working directory.
  const script = process.argv[1] ? realDir(process.argv[1]) : null;
  const starts = [process.cwd(), typeof __dirname !== 'undefined' ? __dirname : process.cwd(), ...(script ? [script] : [])];
  for (const start of starts) {
    let dir = start;
    for (let i = 0; i < 8; i++) {
      const candidate = path.join(dir, 'resources');
      if (looksLikeResources(candidate)) return (cached = candidate);
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error('Cannot find the bundled resources folder (resources/engine). Set OFFLOAD_STUDIO_RESOURCES to it.');
}

export function enginePath(...parts: string[]): string {
  return path.join(resourcesDir(), 'engine', ...parts);
}

export function presetsPath(...parts: string[]): string {
  return path.join(resourcesDir(), 'presets', ...parts);
}

export function samplesPath(...parts: string[]): string {
  return path.join(resourcesDir(), 'samples', ...parts);
}
