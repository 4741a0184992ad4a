// A data folder for the e2e pages that read runs: the sample runs (`load-samples`), one failed run
// (a sample run marked out of GPU memory, with its fix) and one completed run whose GPU allocator
// had to retry. Shared by the wizard, Plan, Runs/run page and Hardware page e2e files.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { repoRoot } from './serve';
import { tmpDir } from '../unit/history-queries/helpers';

export const FAILED = 'audit-failed-oom';
export const RETRIED = 'audit-alloc-retries';

/** A fresh data folder holding the sample runs, FAILED and RETRIED. */
export function samplesWithFailedRun(): string {
  const dataDir = tmpDir();
  const load = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'tsx'),
    ['electron/cli/main.ts', 'load-samples', '--data-dir', dataDir],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  expect(load.status, load.stderr).toBe(0);
  // A failed run (a sample run marked out of GPU memory, with its fix) for the run page's failure card.
  const sample = JSON.parse(fs.readFileSync(path.join(repoRoot, 'resources', 'samples', 'h200-llama-3.2-3b-cores.runs.json'), 'utf8')) as {
    source: unknown;
    runs: { run: Record<string, unknown> }[];
  };
  const failed = structuredClone(sample.runs[0]);
  Object.assign(failed.run, {
    id: FAILED,
    status: 'failed',
    error_class: 'cuda_oom',
    error_message: 'CUDA out of memory. Tried to allocate 2.00 GiB',
    error_fix: 'Lower the micro batch, or offload more to the CPU.',
    tags: '["audit"]',
  });
  // A completed run whose runner counted CUDA allocator retries during its measured steps (a GPU near full).
  const retried = structuredClone(sample.runs[1]) as { run: Record<string, unknown>; details: { result: Record<string, unknown> } };
  Object.assign(retried.run, { id: RETRIED, tags: '["audit"]' });
  retried.details.result = { ...retried.details.result, gpuAllocRetries: 4 };
  const runsFile = path.join(tmpDir(), 'failed.runs.json');
  fs.writeFileSync(runsFile, JSON.stringify({ ...sample, source: null, runs: [failed, retried] }));
  const imported = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'tsx'),
    ['electron/cli/main.ts', 'import-runs', runsFile, '--data-dir', dataDir],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  expect(imported.stdout, imported.stderr).toMatch(/imported 2 run/);
  return dataDir;
}
