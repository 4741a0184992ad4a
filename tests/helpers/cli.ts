// Runs the app's CLI from source (what `npm run cli` runs) for e2e set-up: load or import runs into a
// data folder, read them back. Fails the test with the CLI's stderr when it exits non-zero.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { repoRoot } from './serve';

export function cli(args: string[]): string {
  const result = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'tsx'), ['electron/cli/main.ts', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}
