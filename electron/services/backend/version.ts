// The app's version, read once from package.json (found by walking up from this file, so it
// works from the source tree, from dist/ and inside the packaged app).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function appVersion(): string {
  if (cached) return cached;
  let dir = typeof __dirname !== 'undefined' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'offload-studio' && pkg.version) return (cached = pkg.version);
    }
    dir = path.dirname(dir);
  }
  return (cached = '0.0.0');
}
