// The one CLI parser (kernel/argv.ts over node:util parseArgs) and the flag table (cli/flags.ts):
// every command's existing flags keep working, an unknown flag is refused with the nearest valid
// one and exit code 2, and the table covers every flag the commands' sources read.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../../electron/cli/commands';
import { COMMAND_FLAGS, flagsOf } from '../../../electron/cli/flags';
import { nearest, parseArgv, SERVE_FLAGS, UsageError } from '../../../electron/kernel';
import { workloadDefaultsFor } from '../../../electron/contract';

const root = path.resolve(import.meta.dirname, '../../..');
const parse = (command: string, argv: string[]) => parseArgv(argv, flagsOf(command)!, command);

describe('the flag table', () => {
  it('has an entry for every command', () => {
    expect(Object.keys(commands).filter((c) => !COMMAND_FLAGS[c])).toEqual([]);
  });
  it("covers every flag each command file reads (flags.x, flags['x'], xFlag(flags, 'x'), str('x'), for-of key lists)", () => {
    const dir = path.join(root, 'electron/cli/commands');
    const missing: string[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts')) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const defined = [...text.matchAll(/^ {2}'?([a-z][a-z-]*)'?: \{$/gm)].map((m) => m[1]).filter((c) => commands[c]);
      const allowed = new Set(defined.flatMap((c) => Object.keys(flagsOf(c) ?? {})));
      const read = new Set<string>();
      for (const m of text.matchAll(/flags\.([a-z][A-Za-z]*)|flags\['([a-z-]+)'\]|Flag\((?:flags|ctx), '([a-z-]+)'|\bstr\('([a-z-]+)'\)/g))
        read.add(m[1] ?? m[2] ?? m[3] ?? m[4]);
      for (const m of text.matchAll(/for \(const key of \[([^\]]+)\]/g)) for (const k of m[1].matchAll(/'([a-z-]+)'/g)) read.add(k[1]);
      for (const name of read) if (defined.length && !allowed.has(name)) missing.push(`${file}: --${name}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('parseArgv keeps the existing command lines working', () => {
  it('run: string flags with values, --json, --data-dir, an inline --flag=value', () => {
    const { flags, positionals } = parse('run', [
      '--model',
      'tiny-llama',
      '--strategy',
      'zero3-offload',
      '--seq',
      '32',
      '--micro-batch=1',
      '--steps',
      '3',
      '--warmup',
      '0',
      '--data-dir',
      '/d',
      '--json',
    ]);
    expect(flags).toEqual({
      model: 'tiny-llama',
      strategy: 'zero3-offload',
      seq: '32',
      'micro-batch': '1',
      steps: '3',
      warmup: '0',
      'data-dir': '/d',
      json: true,
    });
    expect(positionals).toEqual([]);
  });
  it('run --activation-checkpointing takes an optional true/false', () => {
    expect(parse('run', ['--activation-checkpointing', 'false', '--json']).flags).toEqual({
      'activation-checkpointing': 'false',
      json: true,
    });
    expect(parse('run', ['--activation-checkpointing', '--json']).flags).toEqual({ 'activation-checkpointing': 'true', json: true });
  });
  it('compare: a boolean before ids no longer swallows one; positionals stay in order', () => {
    expect(parse('compare', ['--json', 'a', 'b', '--baseline', 'a'])).toEqual({
      flags: { json: true, baseline: 'a' },
      positionals: ['a', 'b'],
    });
  });
  it('export: --runs list plus more ids as positionals; booleans', () => {
    expect(parse('export', ['--runs', 'r1,r2', 'r3', '--format', 'pdf', '--out', '/x.pdf', '--overwrite', '--samples'])).toEqual({
      flags: { runs: 'r1,r2', format: 'pdf', out: '/x.pdf', overwrite: true, samples: true },
      positionals: ['r3'],
    });
  });
  it('detect --no-env / --env false; settings set k=v; cluster launch NAME --spec F', () => {
    expect(parse('detect', ['--json', '--no-env']).flags).toEqual({ json: true, 'no-env': true });
    expect(parse('detect', ['--env', 'false']).flags).toEqual({ env: 'false' });
    expect(parse('settings', ['set', 'pythonPath=/usr/bin/python3']).positionals).toEqual(['set', 'pythonPath=/usr/bin/python3']);
    expect(parse('cluster', ['launch', 'lab', '--spec', 's.json', '--json'])).toEqual({
      flags: { spec: 's.json', json: true },
      positionals: ['launch', 'lab'],
    });
  });
  it('plan and tune flags, convert-sweep with a folder positional', () => {
    expect(
      parse('plan', [
        '--model',
        'llama-3.1-8b',
        '--seq',
        '4096',
        '--micro-batch',
        '1',
        '--gpus',
        '1',
        '--no-checkpointing',
        '--write-specs',
        'out',
        '--all-strategies',
      ]).flags,
    ).toMatchObject({ 'no-checkpointing': true, 'write-specs': 'out', 'all-strategies': true });
    expect(parse('tune', ['--model', 'm', '--budget-minutes', '5', '--no-baseline']).flags).toEqual({
      model: 'm',
      'budget-minutes': '5',
      'no-baseline': true,
    });
    expect(parse('convert-sweep', ['dir', '--out', 'f.json', '--label', 'L', '--sweep-id', 'sw1']).positionals).toEqual(['dir']);
  });
  it('serve: port, host, --allow-remote, token', () => {
    expect(parseArgv(['--port', '8765', '--host', '0.0.0.0', '--allow-remote', '--token', 't'], SERVE_FLAGS, 'serve').flags).toEqual({
      port: '8765',
      host: '0.0.0.0',
      'allow-remote': true,
      token: 't',
    });
  });
  it('serve: --allow-host is repeatable, every value in lists', () => {
    const parsed = parseArgv(['--allow-host', 'a.lan', '--port', '1', '--allow-host=b.lan'], SERVE_FLAGS, 'serve');
    expect(parsed.lists).toEqual({ 'allow-host': ['a.lan', 'b.lan'] });
    expect(parsed.flags).toEqual({ port: '1', 'allow-host': 'b.lan' });
    expect(parseArgv([], SERVE_FLAGS, 'serve').lists).toEqual({});
    expect(() => parseArgv(['--allow-host'], SERVE_FLAGS, 'serve')).toThrow(UsageError);
  });
});

describe('mistakes are refused (exit 2) with the nearest valid flag', () => {
  const error = (fn: () => unknown): UsageError => {
    try {
      fn();
    } catch (e) {
      return e as UsageError;
    }
    throw new Error('did not throw');
  };
  it('a misspelt flag names the nearest one and lists the valid ones', () => {
    const e = error(() => parse('run', ['--model', 'm', '--stpes', '4']));
    expect(e).toBeInstanceOf(UsageError);
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/^unknown flag --stpes for 'run'; did you mean --steps\?/);
    expect(e.message).toMatch(/valid flags: .*--max-seconds/);
    expect(error(() => parseArgv(['--prot', '1'], SERVE_FLAGS, 'serve')).message).toMatch(/did you mean --port\?/);
    expect(error(() => parse('runs', ['--modle', 'x'])).message).toMatch(/did you mean --model\?/);
  });
  it('a flag of another command, a short flag, a far-off name: refused, no wild guess', () => {
    expect(error(() => parse('compare', ['--format', 'pdf'])).message).toMatch(/^unknown flag --format for 'compare'/);
    expect(error(() => parse('runs', ['-x'])).message).toMatch(/^unknown flag -x/);
    expect(error(() => parse('runs', ['--zzzzzzzzzz'])).message).not.toMatch(/did you mean/);
  });
  it('a string flag without its value is refused', () => {
    expect(error(() => parse('export', ['--runs', 'r1', '--out'])).message).toMatch(/export: .*--out/);
  });
  it('nearest prefers a prefix', () => {
    expect(nearest('budget', ['budget-seconds', 'only'])).toBe('budget-seconds');
    expect(nearest('x', ['json'])).toBeNull();
  });
});

describe('the CLI process', () => {
  const tsx = path.join(root, 'node_modules/.bin/tsx');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-flags-'));
  const cli = (args: string[]) => spawnSync(tsx, ['electron/cli/main.ts', ...args, '--data-dir', dataDir], { cwd: root, encoding: 'utf8' });
  it('exits 2 on an unknown flag, before the command runs', () => {
    const r = cli(['runs', '--jsn']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown flag --jsn for 'runs'; did you mean --json\?/);
  });
  it('exits 2 on an unknown command with the nearest one', () => {
    const r = cli(['rnus']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'rnus'; did you mean 'runs'\?/);
  });
  it('a bad count is a usage error (exit 2) with the flag named, in every command — a negative one too', () => {
    for (const args of [
      ['plan', '--model', 'tiny-llama', '--seq', '-5'],
      ['run', '--model', 'tiny-llama', '--strategy', 'zero3-offload', '--seq', '0'],
      ['tune', '--model', 'tiny-llama', '--steps', 'x'],
    ]) {
      const r = cli(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: --(seq|steps) must be a whole number of 1 or more \(got (-5|0|x)\)/);
    }
  });
  it("plan takes the Plan form's defaults for this machine for what is not given (workloadDefaultsFor)", () => {
    const r = cli(['plan', '--model', 'tiny-llama', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const machine = JSON.parse(cli(['detect', '--json', '--no-env']).stdout);
    expect(JSON.parse(r.stdout).workload).toMatchObject(workloadDefaultsFor(machine));
  });
  it("plan's text output says every note --json carries: the seed scenario's assumed figures too", () => {
    const text = cli(['plan', '--scenario', 'superoffload-llama-70b-4gpu']);
    const json = cli(['plan', '--scenario', 'superoffload-llama-70b-4gpu', '--json']);
    expect(text.status, text.stderr).toBe(0);
    const notes = JSON.parse(json.stdout).notes as string[];
    expect(notes.some((n) => /catalogue|default figure/.test(n))).toBe(true);
    for (const n of notes) expect(text.stdout).toContain(`note: ${n}`);
  });
  it('still runs a correct command line', () => {
    const r = cli(['runs', '--json', '--limit', '5']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});

describe('a command not yet in the table', () => {
  it('reads its flags as written (old behaviour), refusing nothing', async () => {
    const { inferSpec } = await import('../../../electron/kernel');
    const argv = ['dir', '--out', 'f.json', '--force', '--label=L', '--json'];
    expect(parseArgv(argv, { ...inferSpec(argv), json: 'boolean' }, 'new-command')).toEqual({
      flags: { out: 'f.json', force: true, label: 'L', json: true },
      positionals: ['dir'],
    });
  });
});
