// The cluster pre-flight's fix for a missing runner named `offload-studio cluster stage
// NAME` — a command that did not exist, with a binary that is not on PATH in a clone. `cluster stage`
// now copies the app's runner into the cluster's engine folder, and the fix says how to call it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const cli = (args: string[]) =>
  spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'tsx'), ['electron/cli/main.ts', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env },
  });

describe('cluster stage: copies the runner, and the pre-flight fix names it', () => {
  it('copies the runner into the engine folder; the pre-flight fix names the command as a clone runs it', { timeout: 120_000 }, () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'os-stage-'));
    const dataDir = path.join(root, 'data');
    const engineDir = path.join(root, 'engine');
    const file = path.join(root, 'lab.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        name: 'lab',
        hosts: [{ host: 'node-a', slots: 1, sshUser: null, sshPort: 22, pythonPath: '/usr/bin/python3' }],
        masterAddr: 'node-a',
        masterPort: 29500,
        engineDir,
      }),
    );
    expect(cli(['cluster', 'save', file, '--data-dir', dataDir]).status).toBe(0);
    const staged = cli(['cluster', 'stage', 'lab', '--data-dir', dataDir]);
    expect(staged.status, staged.stderr + staged.stdout).toBe(0);
    expect(staged.stdout).toMatch(new RegExp(`staged the runner \\(\\d+ file\\(s\\)\\) in ${engineDir}`));
    expect(fs.existsSync(path.join(engineDir, 'bench.py'))).toBe(true);
    const source = fs.readFileSync(path.join(repoRoot, 'electron/services/cluster/preflight.ts'), 'utf8');
    expect(source).toContain('npm run cli -- cluster stage');
    expect(source).not.toMatch(/`copy the app's runner there: offload-studio cluster stage/);
  });
});
