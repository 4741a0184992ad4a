// Usage errors exit with one code across commands (2). What the command line named and
// the app cannot use — a flag left without its value, a run id, cluster or file that is not there, a
// report path into a missing folder, a file that is not what its flag takes — is a usage error in
// every command; before, these exited 1 in some and 2 in others, and a flag followed by another flag
// said parseArgs' "Option '--import' argument is ambiguous". A run that starts and fails exits 1
// (tests/unit/engine/preflight-here.test.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-exit-codes-'));
const notJson = path.join(dataDir, 'not-json.json');
fs.writeFileSync(notJson, 'vm\n');
const cli = (args: string[]) =>
  spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
  });

const CASES: [string[], RegExp][] = [
  [
    ['measure', '--import', '--json'],
    /^error: measure: --import needs a value right after it \(got the flag --json\), e\.g\. --import VALUE$/m,
  ],
  [['plan', '--model', '--seq', '64'], /^error: plan: --model needs a value right after it \(got the flag --seq\)/m],
  [['runs', 'show', 'nope', '--resources'], /No run 'nope'/],
  [['compare', 'nope-1', 'nope-2'], /No stored run with id nope-1, nope-2/],
  [['export', '--runs', 'nope', '--format', 'html', '--out', path.join(dataDir, 'r.html')], /No stored run with id nope/],
  [['export-runs', '--out', path.join(dataDir, 'missing-folder', 'runs.json')], /The folder .*missing-folder does not exist/],
  [['plan', '--model', 'tiny-llama', '--machine', notJson], /--machine .*not-json\.json: not JSON/],
  [['run', '--ds-config', notJson, '--model', 'tiny-llama', '--seq', '32'], /not JSON/],
  [
    ['cluster', 'preflight'],
    /^error: cluster preflight needs the cluster's name: npm run cli -- cluster preflight NAME \(names from: npm run cli -- cluster list\)$/m,
  ],
  [['cluster', 'preflight', 'nosuch'], /No cluster named 'nosuch'/],
];

describe('every usage error exits 2, in every command', () => {
  it.each(CASES)('%j', (args, message) => {
    const r = cli(args);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/ambiguous|expected string, received undefined/);
    expect(r.status, r.stderr).toBe(2);
  });
});
