// The CLI is a second form of the schema: a workload option is declared once, in
// contract/workload-options.ts, and reaches every place from there. Each test walks the whole table,
// so an entry added there (as `seed` was) is followed into the workload schemas, the CLI's flag table,
// usage and checks, the Plan form, the RunSpec, SQLite and the CSV export — a place the new option
// does not reach fails here, not in a user's hands.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import {
  choicesOf,
  csvColumnOf,
  FORM_OPTION_KEYS,
  HASHED_OPTION_KEYS,
  ranWorkloadOf,
  RunSpecSchema,
  RunSummarySchema,
  SPEC_OPTION_KEYS,
  WORKLOAD_COMMANDS,
  WORKLOAD_DEFAULTS,
  WORKLOAD_OPTION_LIST,
  WorkloadOverridesSchema,
  WorkloadSchema,
  type RunSpec,
  type StoredSpec,
  type WorkloadInput,
  type WorkloadOption,
} from '../../../electron/contract';
import { commands } from '../../../electron/cli/commands';
import { flagsOf } from '../../../electron/cli/flags';
import { readWorkloadFlags, workloadHelp } from '../../../electron/cli/workload-flags';
import { parseArgv, UsageError } from '../../../electron/kernel';
import { buildRunSpec, configHash } from '../../../electron/services/tuner';
import { createReports, RUN_COLUMNS } from '../../../electron/services/reports';
import { openHistory, type HistoryStore } from '../../../electron/services/history';
import type { CommandContext } from '../../../electron/cli/command';
import { parseCsv } from '../reports/csv-parse';
import { tempDir } from '../reports/fixtures';

// The Plan form's store reaches the backend through the page's client (a window object): none here.
vi.mock('../../../renderer/src/api/client', () => ({
  api: { on: () => () => undefined, invoke: () => new Promise(() => undefined) },
  transport: 'server',
}));

const root = path.resolve(import.meta.dirname, '../../..');

/** A value each option takes, other than its default (so arriving is not mistaken for defaulting). */
function sample(o: WorkloadOption): { value: unknown; text: string } {
  switch (o.kind) {
    case 'count':
      return { value: 3, text: '3' };
    case 'whole':
      return { value: 7, text: '7' };
    case 'number':
      return { value: 0.5, text: '0.5' };
    case 'choice': {
      const other = choicesOf(o).find((c) => c !== o.default)!;
      return { value: other, text: other };
    }
    case 'switch':
      return o.default === false ? { value: true, text: 'true' } : { value: false, text: 'false' };
    default:
      return { value: 'x', text: 'x' };
  }
}

/** A value the option's check refuses (none for free text). */
function wrong(o: WorkloadOption): string | null {
  return { count: '0', whole: '-1', number: 'many', choice: 'nope', switch: 'maybe', text: null }[o.kind];
}

const cliOptions = WORKLOAD_OPTION_LIST.filter((o) => o.cli);
const specOptions = WORKLOAD_OPTION_LIST.filter((o) => o.spec);

describe('the table', () => {
  it('each default is a value its own check takes; each choice has choices', () => {
    for (const o of WORKLOAD_OPTION_LIST) {
      if (o.default !== undefined) expect(o.value.safeParse(o.default).success, o.key).toBe(true);
      if (o.kind === 'choice') expect(choicesOf(o).length, o.key).toBeGreaterThan(1);
      if (o.presence === 'required')
        expect(o.default, `${o.key}: a required option needs the default the form and the CLI fill in`).not.toBeUndefined();
      if (o.form) expect(o.default, `${o.key}: a form field starts from a default`).not.toBeUndefined();
    }
  });
  it("this test's sample of each option is a value its check takes, and not its default", () => {
    for (const o of WORKLOAD_OPTION_LIST) {
      expect(o.value.safeParse(sample(o).value).success, o.key).toBe(true);
      expect(sample(o).value, o.key).not.toEqual(o.default);
    }
  });
  it('is the workload: WorkloadSchema and WorkloadOverridesSchema are the model and every option', () => {
    const keys = WORKLOAD_OPTION_LIST.map((o) => o.key);
    expect(Object.keys(WorkloadSchema.shape)).toEqual(['model', ...keys]);
    expect(Object.keys(WorkloadOverridesSchema.shape)).toEqual(['model', ...keys]);
    const given = Object.fromEntries(WORKLOAD_OPTION_LIST.map((o) => [o.key, sample(o).value]));
    expect(WorkloadSchema.parse({ model: 'tiny-llama', ...given })).toEqual({ model: 'tiny-llama', ...given });
    // what is left out: a defaulted option's default, an optional one absent
    const bare = WorkloadSchema.parse({
      model: 'tiny-llama',
      ...Object.fromEntries(WORKLOAD_OPTION_LIST.filter((o) => o.presence === 'required').map((o) => [o.key, o.default])),
    });
    for (const o of WORKLOAD_OPTION_LIST) expect(bare[o.key], o.key).toEqual(o.presence === 'optional' ? undefined : o.default);
  });
});

describe('the CLI', () => {
  const out = (command: string) => {
    const lines: string[] = [];
    const context = {
      flags: { help: true },
      positionals: [],
      json: false,
      out: (s: string) => lines.push(s),
      backend: {},
    } as unknown as CommandContext;
    return commands[command].run(context).then(() => lines.join('\n'));
  };
  it('every command an option names takes its flag (and its other spelling); the others do not', () => {
    for (const command of WORKLOAD_COMMANDS)
      for (const o of cliOptions) {
        const spec = flagsOf(command)!;
        const takes = o.cli!.commands.includes(command);
        expect(Object.hasOwn(spec, o.cli!.flag), `${command} --${o.cli!.flag}`).toBe(takes);
        if (o.cli!.negation) expect(Object.hasOwn(spec, o.cli!.negation), `${command} --${o.cli!.negation}`).toBe(takes);
      }
  });
  it("each command's --help shows each of its options' flag with its help", async () => {
    for (const command of WORKLOAD_COMMANDS) {
      const help = await out(command);
      expect(help).toContain(workloadHelp(command));
      for (const o of cliOptions.filter((x) => x.cli!.commands.includes(command))) {
        expect(help, `${command} --${o.cli!.flag}`).toMatch(new RegExp(`\\[--${o.cli!.flag} `));
        expect(help, `${command} --${o.cli!.flag}'s help`).toContain(o.cli!.help);
      }
    }
  });
  it('a flag given on the command line arrives in the workload as its value; a wrong value is refused naming the flag', () => {
    for (const command of WORKLOAD_COMMANDS)
      for (const o of cliOptions.filter((x) => x.cli!.commands.includes(command))) {
        const s = sample(o);
        const { flags } = parseArgv([`--${o.cli!.flag}`, s.text], flagsOf(command)!, command);
        expect(readWorkloadFlags(flags, command), `${command} --${o.cli!.flag} ${s.text}`).toEqual({ [o.key]: s.value });
        const bad = wrong(o);
        if (bad === null) continue;
        const given = parseArgv([`--${o.cli!.flag}=${bad}`], flagsOf(command)!, command).flags;
        expect(() => readWorkloadFlags(given, command), `${command} --${o.cli!.flag}=${bad}`).toThrow(UsageError);
        expect(() => readWorkloadFlags(given, command)).toThrow(new RegExp(`--${o.cli!.flag}`));
      }
  });
  it('old spellings keep working: --no-checkpointing is --activation-checkpointing false, in every command', () => {
    for (const command of WORKLOAD_COMMANDS) {
      const { flags } = parseArgv(['--no-checkpointing'], flagsOf(command)!, command);
      expect(readWorkloadFlags(flags, command)).toEqual({ activationCheckpointing: false });
      expect(readWorkloadFlags(parseArgv(['--activation-checkpointing'], flagsOf(command)!, command).flags, command)).toEqual({
        activationCheckpointing: true,
      });
    }
  });
});

describe('the Plan form', () => {
  it("starts from each form option's default, sends it, and a change marks the plan out of date", async () => {
    const { defaultWorkload, FORM_FIELDS, overrides, workloadKey } = await import('../../../renderer/src/stores/plan');
    for (const key of FORM_OPTION_KEYS) {
      const o = WORKLOAD_OPTION_LIST.find((x) => x.key === key)!;
      expect(defaultWorkload[key], key).toEqual(o.default);
      expect(WORKLOAD_DEFAULTS[key], key).toEqual(o.default);
      expect(FORM_FIELDS, key).toContain(key);
      const changed = { ...defaultWorkload, [key]: sample(o).value };
      expect(overrides({ workload: changed, imported: [] })[key], key).toEqual(sample(o).value);
      expect(workloadKey(changed), key).not.toBe(workloadKey(defaultWorkload));
    }
  });
  it('draws a field for each form option, with its label and test id', async () => {
    // the page's modules read the window's address at import (the app store's page): a bare one here
    vi.stubGlobal('window', {
      location: { hash: '', search: '', protocol: 'http:', host: 'localhost' },
      addEventListener: () => undefined,
      matchMedia: () => ({ matches: false, addEventListener: () => undefined }),
    });
    const { WorkloadForm } = await import('../../../renderer/src/pages/plan/WorkloadForm');
    const html = renderToStaticMarkup(createElement(WorkloadForm));
    for (const o of WORKLOAD_OPTION_LIST.filter((x) => x.form)) {
      expect(html, o.key).toContain(`<span>${o.form!.label}</span>`);
      if (o.form!.testId) expect(html, o.key).toContain(`data-testid="${o.form!.testId}"`);
    }
  });
});

/** A spec of tiny-llama whose every option has its sample value. */
function sampledSpec(): RunSpec {
  const given = Object.fromEntries(WORKLOAD_OPTION_LIST.map((o) => [o.key, sample(o).value])) as Omit<WorkloadInput, 'model'>;
  return buildRunSpec({ ...given, model: 'tiny-llama' }, 'zero3-offload');
}

describe('the RunSpec, SQLite and the CSV', () => {
  it("a spec-carried option is in the spec the runner gets, as given, and in the runner's JSON Schema", () => {
    const spec = sampledSpec();
    const parsed = RunSpecSchema.parse(JSON.parse(JSON.stringify(spec)));
    const jsonSchema = JSON.parse(fs.readFileSync(path.join(root, 'resources/engine/run-spec.schema.json'), 'utf8')) as {
      properties: Record<string, unknown>;
    };
    for (const o of specOptions) {
      expect(spec[o.key as keyof RunSpec], o.key).toEqual(sample(o).value);
      expect(parsed[o.key as keyof RunSpec], o.key).toEqual(sample(o).value);
      expect(Object.keys(jsonSchema.properties), o.key).toContain(o.key);
    }
  });
  it('the config hash changes with a hashed option and not with another', () => {
    const spec = sampledSpec();
    for (const o of specOptions) {
      const d = o.default ?? sample(o).value;
      const other = { ...spec, [o.key]: d === sample(o).value ? undefined : d };
      expect(configHash(other) !== configHash(spec), o.key).toBe((HASHED_OPTION_KEYS as string[]).includes(o.key));
    }
  });
  it('the stored run keeps it (SQLite) and the CSV export has its column with its value', async () => {
    const dir = tempDir('workload-options-');
    const store: HistoryStore = openHistory(dir);
    try {
      const spec = sampledSpec();
      store.createRun({
        id: 'r1',
        sweepId: 's1',
        repeatIndex: 0,
        model: 'tiny-llama',
        strategy: 'zero3-offload',
        engine: 'deepspeed',
        steps: 4,
        warmup: 1,
        spec,
      });
      store.startRun('r1', { logPath: null });
      store.finishRun('r1', { status: 'failed', errorClass: 'unknown', errorMessage: 'no runner here' });
      const stored = store.getRun('r1', 0)!.spec as Record<string, unknown>;
      for (const o of specOptions) expect(stored[o.key], o.key).toEqual(sample(o).value);

      const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
      const res = await reports.export({ runIds: ['r1'], format: 'csv', path: path.join(dir, 'runs.csv') });
      const [header, row] = parseCsv(fs.readFileSync(res.path, 'utf8'));
      expect(header).toEqual(RUN_COLUMNS);
      for (const o of specOptions) {
        const column = header.indexOf(csvColumnOf(o.key));
        expect(column, `${o.key}: no column ${csvColumnOf(o.key)}`).toBeGreaterThanOrEqual(0);
        // the run has no config message: the report's workload is the spec's (gpus per node, as --gpus is)
        expect(row[column], o.key).toBe(String(sample(o).value));
      }
      expect(SPEC_OPTION_KEYS.length).toBe(specOptions.length);

      // An option with a runs column: the list shows the run's reading of it in the summary field the
      // column names (the GPUs' column keeps the world size, GPUs × nodes), as the report reads it.
      const listed = store.listRuns({}).runs[0] as unknown as Record<string, unknown>;
      const ran = ranWorkloadOf({ spec: stored as StoredSpec });
      const columned = WORKLOAD_OPTION_LIST.filter((o) => o.column);
      expect(columned.map((o) => o.key)).toEqual(['seqLen', 'microBatch', 'gpus', 'nodes', 'precision']);
      for (const o of columned) {
        expect(Object.keys(RunSummarySchema.shape), o.key).toContain(o.column!.reads);
        expect(listed[o.column!.reads], o.key).toEqual(ran[o.column!.reads]);
        expect(listed[o.column!.reads], o.key).not.toBeNull();
      }
      expect(listed.worldSize).toBe(9); // 3 GPUs per node × 3 nodes: each count option's sample is 3
    } finally {
      store.close();
    }
  });
});

describe('seed, end to end through the CLI', () => {
  it('run --seed 7 runs a spec with seed 7; the stored run and its CSV row say 7', { timeout: 120_000 }, () => {
    const dataDir = tempDir('workload-seed-');
    const cli = (args: string[]) =>
      spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
        cwd: root,
        encoding: 'utf8',
      });
    const fakePython = path.join(root, 'tests/reliability/fixtures/fake-python');
    const r = cli([
      'run',
      '--model',
      'tiny-llama',
      '--strategy',
      'zero3-offload',
      '--seq',
      '32',
      '--gpus',
      '1',
      '--steps',
      '1',
      '--warmup',
      '0',
      '--seed',
      '7',
      '--python',
      fakePython,
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const [run] = JSON.parse(r.stdout) as { id: string }[];
    const history = openHistory(dataDir);
    try {
      expect((history.getRun(run.id, 0)!.spec as RunSpec).seed).toBe(7);
    } finally {
      history.close();
    }
    const csv = path.join(dataDir, 'runs.csv');
    const exported = cli(['export', '--runs', run.id, '--format', 'csv', '--out', csv]);
    expect(exported.status, exported.stderr).toBe(0);
    const [header, row] = parseCsv(fs.readFileSync(csv, 'utf8'));
    expect(row[header.indexOf('seed')]).toBe('7');
  });
});
