// A user's ds_config refused at the command line, before anything runs (issue 47 items 4 and 5): a
// file that is not JSON names itself, the line, the column and what JSON expected there — never its
// text (the path may be a symlink to a secret) and no "(field: (json))"; and SuperOffload is refused on
// a machine without a GPU whichever door it comes through (run --strategy, run --ds-config), exit 2,
// leaving no failed run in history.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-ds-config-'));
const cli = (args: string[]) =>
  spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
  });
const hasGpu = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8' }).status === 0;

describe('plan --ds-config on a file that is not JSON', () => {
  it('names the file, line, column and what was expected, and quotes none of it', () => {
    const secret = path.join(dataDir, 'credentials');
    fs.writeFileSync(secret, 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\n');
    const link = path.join(dataDir, 'ds_config.json');
    fs.symlinkSync(secret, link);
    const r = cli(['plan', '--ds-config', link, '--model', 'tiny-llama', '--seq', '64']);
    expect(r.stderr).toMatch(/^error: ds_config\.json is not JSON: at line 1, column 1 JSON expected a value/m);
    expect(r.stderr).not.toMatch(/wJalrXUtnFEMI|AWS_SECRET/);
    expect(r.stderr).not.toMatch(/\(field: /);
    expect(r.status).toBe(2);
  });
});

describe.skipIf(hasGpu)('SuperOffload on this machine without a GPU: one rule for both doors', () => {
  it('run --strategy and run --ds-config are both refused up front, and history stays empty', () => {
    const byStrategy = cli(['run', '--strategy', 'superoffload', '--model', 'tiny-llama', '--seq', '64']);
    const guide = path.join(root, 'tests/fixtures/ds-configs/deepspeed-guide-superoffload.json');
    const byConfig = cli(['run', '--ds-config', guide, '--model', 'tiny-llama', '--seq', '64']);
    const rule = /SuperOffload \(ZeRO-3 \+ overlapped CPU optimizer\) \(superoffload\) cannot run on this machine: no GPU on this machine/;
    expect(byStrategy.stderr).toMatch(rule);
    expect(byConfig.stderr).toMatch(new RegExp(`error: deepspeed-guide-superoffload\\.json: ${rule.source}`));
    expect([byStrategy.status, byConfig.status]).toEqual([2, 2]);
    const runs = cli(['runs', '--json']);
    expect(JSON.parse(runs.stdout)).toEqual([]);
  });
});
