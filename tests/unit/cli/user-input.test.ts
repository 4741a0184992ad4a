// The CLI takes the user's words and paths: relative paths resolve in the folder the
// command was typed in (INIT_CWD under `npm run cli`), a missing input file is named with its flag
// (no raw ENOENT), `runs --since/--until` read today, yesterday, 2h, 3d, 1w and ISO dates and refuse
// anything else, and export / measure say which values are valid instead of a usage line or "NaN".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveUserPaths, userCwd } from '../../../electron/cli/paths';
import { parseWhen } from '../../../electron/cli/when';
import { UsageError } from '../../../electron/kernel';

const root = path.resolve(import.meta.dirname, '../../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

/** The CLI as `npm run cli` starts it: cwd the checkout, INIT_CWD the user's folder. */
function cli(args: string[], userDir: string) {
  const env = { ...process.env, INIT_CWD: userDir, npm_lifecycle_event: 'cli' };
  return spawnSync(tsx, ['electron/cli/main.ts', ...args], { cwd: root, encoding: 'utf8', env });
}

describe('parseWhen: the forms people type', () => {
  const now = new Date(2026, 11, 3, 14, 30, 0); // local 3 Dec 2026 14:30
  const at = (...a: [number, number, number, number?, number?]) =>
    new Date(...(a as [number, number, number, number, number])).toISOString();
  it('today, yesterday and now', () => {
    expect(parseWhen('since', 'today', now)).toBe(at(2026, 11, 3, 0, 0));
    expect(parseWhen('since', 'Yesterday', now)).toBe(at(2026, 11, 2, 0, 0));
    expect(parseWhen('until', 'now', now)).toBe(now.toISOString());
  });
  it('durations ago: 30m, 2h, 3d, 1w, "2h ago"', () => {
    expect(parseWhen('since', '30m', now)).toBe(new Date(now.getTime() - 30 * 60e3).toISOString());
    expect(parseWhen('since', '2h', now)).toBe(at(2026, 11, 3, 12, 30));
    expect(parseWhen('since', '2h ago', now)).toBe(at(2026, 11, 3, 12, 30));
    expect(parseWhen('since', '3d', now)).toBe(new Date(now.getTime() - 3 * 86400e3).toISOString());
    expect(parseWhen('since', '1w', now)).toBe(new Date(now.getTime() - 7 * 86400e3).toISOString());
  });
  it('ISO dates (local midnight) and date-times', () => {
    expect(parseWhen('since', '2026-12-01', now)).toBe(at(2026, 11, 1, 0, 0));
    expect(parseWhen('since', '2026-12-01T09:30', now)).toBe(at(2026, 11, 1, 9, 30));
    expect(parseWhen('since', '2026-12-01T09:30:00Z', now)).toBe('2026-12-01T09:30:00.000Z');
  });
  it('garbage is refused (exit 2) naming the flag and the forms', () => {
    for (const bad of ['garbage', '', '2026-13-45', '2026-02-30', '-2h', 'last tuesday', '12']) {
      let error: unknown;
      try {
        parseWhen('since', bad, now);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(/^--since '.*' is not a time I can read; use today, yesterday, .*2h, 3d/);
    }
  });
});

describe('resolveUserPaths', () => {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-user-'));
  fs.writeFileSync(path.join(userDir, 'machine.json'), '{}');
  fs.mkdirSync(path.join(userDir, 'model'));
  fs.writeFileSync(path.join(userDir, 'model', 'config.json'), '{}');
  it('makes output and input paths absolute in the user folder', () => {
    const r = resolveUserPaths('plan', { machine: 'machine.json', 'write-specs': 'specs', model: 'model', 'data-dir': 'd' }, [], userDir);
    expect(r.flags).toEqual({
      machine: path.join(userDir, 'machine.json'),
      'write-specs': path.join(userDir, 'specs'),
      model: path.join(userDir, 'model'),
      'data-dir': path.join(userDir, 'd'),
    });
    expect(resolveUserPaths('export', { out: 'r.html' }, [], userDir).flags.out).toBe(path.join(userDir, 'r.html'));
    expect(resolveUserPaths('import-runs', {}, ['machine.json'], userDir).positionals).toEqual([path.join(userDir, 'machine.json')]);
  });
  it('leaves preset ids and ids alone (runs --machine is an id, --model a preset)', () => {
    expect(resolveUserPaths('plan', { model: 'tiny-llama' }, [], userDir).flags.model).toBe('tiny-llama');
    expect(resolveUserPaths('runs', { machine: 'abc123' }, [], userDir).flags.machine).toBe('abc123');
  });
  it('refuses a missing input file with its flag, the path and the folder', () => {
    expect(() => resolveUserPaths('plan', { machine: 'nope.json' }, [], userDir)).toThrow(
      `--machine nope.json: no such file or folder: ${path.join(userDir, 'nope.json')} (relative paths start from ${userDir})`,
    );
    expect(() => resolveUserPaths('plan', { model: './cfg/config.json' }, [], userDir)).toThrow(
      /^--model \.\/cfg\/config\.json: no such file/,
    );
    expect(() => resolveUserPaths('cluster', {}, ['save', 'c.json'], userDir)).toThrow(/^cluster save c\.json: no such file/);
  });
  it('userCwd is INIT_CWD only under npm run cli', () => {
    expect(userCwd({ INIT_CWD: userDir, npm_lifecycle_event: 'cli' }, '/x')).toBe(userDir);
    expect(userCwd({ INIT_CWD: userDir, npm_lifecycle_event: 'test' }, '/x')).toBe('/x');
    expect(userCwd({}, '/x')).toBe('/x');
  });
});

describe('the CLI process, as npm run cli starts it', () => {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-user-'));
  const dataDir = 'data'; // relative too: in the user's folder
  let runs: { id: string; createdAt: string }[] = [];
  beforeAll(() => {
    const r = cli(['load-samples', '--data-dir', dataDir], userDir);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(userDir, dataDir))).toBe(true);
    runs = JSON.parse(cli(['runs', '--json', '--data-dir', dataDir], userDir).stdout);
    expect(runs.length).toBeGreaterThan(5);
  }, 60_000);

  it('a relative --out lands in the user folder, not the checkout', () => {
    const r = cli(['export-runs', '--out', 'moved.runs.json', '--data-dir', dataDir], userDir);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(userDir, 'moved.runs.json'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'moved.runs.json'))).toBe(false);
    const e = cli(['export', '--runs', runs[0].id, '--format', 'json', '--out', 'report.json', '--data-dir', dataDir], userDir);
    expect(e.status, e.stderr).toBe(0);
    expect(fs.existsSync(path.join(userDir, 'report.json'))).toBe(true);
  }, 60_000);

  it('a missing relative config path is named, not a raw ENOENT', () => {
    const r = cli(
      ['plan', '--model', 'configs/config.json', '--seq', '64', '--micro-batch', '1', '--gpus', '1', '--data-dir', dataDir],
      userDir,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--model configs/config.json: no such file or folder: ${path.join(userDir, 'configs/config.json')}`);
    expect(r.stderr).not.toMatch(/ENOENT/);
    const m = cli(
      [
        'plan',
        '--model',
        'tiny-llama',
        '--seq',
        '64',
        '--micro-batch',
        '1',
        '--gpus',
        '1',
        '--machine',
        'gpu-box.json',
        '--data-dir',
        dataDir,
      ],
      userDir,
    );
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/--machine gpu-box\.json: no such file/);
  }, 60_000);

  it('runs --since / --until take ISO dates, today, yesterday, 2h, 3d; garbage exits 2', () => {
    const count = (args: string[]) => {
      const r = cli(['runs', '--json', '--data-dir', dataDir, ...args], userDir);
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as unknown[]).length;
    };
    const cut = new Date(2026, 11, 3).toISOString(); // local midnight, as the CLI reads 2026-12-03
    expect(count(['--since', '2026-12-03'])).toBe(runs.filter((r) => r.createdAt >= cut).length);
    expect(count(['--until', '2026-12-03'])).toBe(runs.filter((r) => r.createdAt <= cut).length);
    expect(count(['--since', '2000-01-01'])).toBe(runs.length);
    for (const form of ['today', 'yesterday', '2h', '3d'])
      expect(cli(['runs', '--since', form, '--data-dir', dataDir], userDir).status).toBe(0);
    const bad = cli(['runs', '--since', 'garbage', '--data-dir', dataDir], userDir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--since 'garbage' is not a time I can read; use today, yesterday/);
    // Filters that match nothing say so (not "No runs yet" with runs stored).
    expect(cli(['runs', '--until', '2000-01-01', '--data-dir', dataDir], userDir).stdout).toMatch(/No run matches these filters/);
  }, 90_000);

  it('export names the valid formats and the missing --out; measure names a bad budget', () => {
    const docx = cli(['export', '--runs', runs[0].id, '--format', 'docx', '--out', 'r.docx', '--data-dir', dataDir], userDir);
    expect(docx.status).toBe(2);
    expect(docx.stderr).toMatch(/--format 'docx' is not one I can write: use one of html, pdf, csv, json, bundle/);
    const noOut = cli(['export', '--runs', runs[0].id, '--format', 'html', '--data-dir', dataDir], userDir);
    expect(noOut.status).toBe(2);
    expect(noOut.stderr).toMatch(/--out is missing: the file to write \(e\.g\. --out report\.html\)/);
    const budget = cli(['measure', '--budget-seconds', 'abc', '--data-dir', dataDir], userDir);
    expect(budget.status).toBe(2);
    expect(budget.stderr).toMatch(/--budget-seconds 'abc' is not a number of seconds/);
    expect(budget.stderr).not.toMatch(/NaN/);
  }, 60_000);
});
