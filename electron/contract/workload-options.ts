// The workload's options, each declared once: its key in the workload (and the RunSpec), the check of
// its value, its default, and where it shows — the CLI flag of each command that takes it and its
// help, the Plan form's field, the RunSpec (and so SQLite, where the spec is stored whole, and the
// CSV export), and how a run's value of it is kept and shown (its column of the runs table, its
// RunSummary field, its CSV header). WorkloadSchema / WorkloadOverridesSchema (plan.ts), the spec's
// workload fields (run-spec.ts), the CLI's flag table, usage text and value checks
// (electron/cli/workload-flags.ts), the Plan form (renderer stores/plan.ts, pages/PlanPage.tsx), the
// runs table's workload columns with the list's summary and the import's number checks
// (services/history/summary-columns.ts, workload-columns.ts) and the CSV's columns
// (services/reports/csv.ts) are all made from this table: a new option is one entry here.
// tests/unit/contract/workload-options.test.ts follows every entry to each of those places.
//
// The model is not an option here: it is what is planned (a preset id, a config.json, an inline
// architecture), read by each command in its own way (cli/commands/plan.ts modelFlag).
import { z } from 'zod';
import type { RanWorkload } from './ran-workload';

/** The precisions a plan takes (the Plan form's, the CLI's --precision). */
export const PlanPrecisionSchema = z.enum(['bf16', 'fp16']);
/** The precisions a RunSpec may say (a user's own ds_config may run fp32). */
export const PrecisionSchema = z.enum(['bf16', 'fp16', 'fp32']);

/** A count (sequence length, batch, GPUs…): the words the Plan form shows next to the field and errors name after it. */
const count = () =>
  z.number({ error: 'must be a number' }).int({ error: 'must be a whole number (no fractions)' }).positive({ error: 'must be 1 or more' });
/** A count in the spec (the runner's JSON Schema; the words are the workload's). */
const specCount = () => z.number().int().positive();

/** The seed of the synthetic tokens and of the model's initial weights (the runner adds each rank's index). */
export const DEFAULT_SEED = 1234;

/** The commands that take workload flags. */
export type WorkloadCommand = 'plan' | 'run' | 'tune';
export const WORKLOAD_COMMANDS: readonly WorkloadCommand[] = ['plan', 'run', 'tune'];

/**
 * How a value is read and shown: `count` a whole number ≥ 1, `whole` a whole number ≥ 0 (CLI:
 * cli/flag-values.ts; form: a number field), `number` any number the schema takes, `choice` one of
 * an enum's values (form: a select), `switch` on/off (CLI: `--flag [true|false]`; form: a checkbox),
 * `text` a string.
 */
export type OptionKind = 'count' | 'whole' | 'number' | 'choice' | 'switch' | 'text';

export interface WorkloadOptionDecl {
  /** The check of a given value (no default): the overrides schema, the CLI's check and the form's. */
  value: z.ZodType;
  kind: OptionKind;
  /**
   * In a workload: `required` (a plan needs it; the form and the CLI fill in `default`, the CLI for this
   * machine: contract workloadDefaultsFor), `defaulted` (the schema fills in `default`), `optional`
   * (absent: the generator's or the spec's own default).
   */
  presence: 'required' | 'defaulted' | 'optional';
  /** The value when none is given (the Plan form starts from it). */
  default?: unknown;
  /** Carried in the RunSpec under the same key (`schema`: its check there, the runner's JSON Schema
   *  is made from it); `hashed`: part of the config hash (what determines speed). A spec-carried option
   *  is stored with the spec in SQLite and is a column of the CSV export (snake_case of its key). */
  spec?: { schema: z.ZodType; hashed: boolean };
  /** Its CLI flag: the name, the commands that take it, the help line, the value's placeholder in the
   *  usage line (from the enum for a choice), other spellings (`negation`: a switch that says false). */
  cli?: { flag: string; commands: readonly WorkloadCommand[]; help: string; placeholder?: string; negation?: string };
  /** Its Plan form field: the label, and the test id the end-to-end tests find it by. */
  form?: { label: string; testId?: string };
  /**
   * Its column of the `runs` table (`name`), for listing and grouping runs without reading their
   * documents: it holds `reads`, the stored run's reading of it (contract ran-workload.ts), and is the
   * RunSummary field of that name. The reading is what the column keeps, not the option's raw value:
   * the GPUs column is the world size (GPUs × nodes), what a run's figures are per.
   */
  column?: { name: string; reads: WorkloadColumnField };
}

/** The readings of a stored run a runs column can keep: a count or a text. */
export type WorkloadColumnField = keyof Pick<RanWorkload, 'seqLen' | 'microBatch' | 'worldSize' | 'nodes' | 'precision'>;

/** Keeps each entry's own types (its schemas) while checking it is a declaration. */
function option<const D extends WorkloadOptionDecl>(d: D): D {
  return d;
}

const ALL: readonly WorkloadCommand[] = WORKLOAD_COMMANDS;

/** Every workload option, in the workload's (and the spec's, the form's, the CSV's) order. */
export const WORKLOAD_OPTIONS = {
  seqLen: option({
    value: count(),
    kind: 'count',
    presence: 'required',
    default: 2048,
    spec: { schema: specCount(), hashed: true },
    cli: { flag: 'seq', commands: ALL, help: 'sequence length, tokens per sample (default 2048; 512 on a machine without a GPU)' },
    form: { label: 'Sequence length', testId: 'seq-len' },
    column: { name: 'seq_len', reads: 'seqLen' },
  }),
  microBatch: option({
    value: count(),
    kind: 'count',
    presence: 'required',
    default: 1,
    spec: { schema: specCount(), hashed: true },
    cli: {
      flag: 'micro-batch',
      commands: ALL,
      help: "samples per GPU per forward pass (default 1; run: given, it runs as given, else the plan's searched micro batch)",
    },
    form: { label: 'Micro batch / GPU', testId: 'micro-batch' },
    column: { name: 'micro_batch', reads: 'microBatch' },
  }),
  gradAccum: option({
    value: count(),
    kind: 'count',
    presence: 'defaulted',
    default: 1,
    spec: { schema: specCount(), hashed: true },
    cli: { flag: 'grad-accum', commands: ALL, help: 'gradient accumulation steps per optimizer step (default 1)' },
    form: { label: 'Gradient accumulation', testId: 'grad-accum' },
  }),
  /** GPUs per node. */
  gpus: option({
    value: count(),
    kind: 'count',
    presence: 'required',
    default: 1,
    spec: { schema: specCount(), hashed: true },
    cli: { flag: 'gpus', commands: ALL, help: "GPUs per node (default: this machine's GPU count, 1 without a GPU)" },
    form: { label: 'GPUs per node', testId: 'gpus' },
    column: { name: 'world_size', reads: 'worldSize' },
  }),
  nodes: option({
    value: count(),
    kind: 'count',
    presence: 'defaulted',
    default: 1,
    spec: { schema: specCount(), hashed: true },
    cli: { flag: 'nodes', commands: ALL, help: 'nodes (default 1)' },
    form: { label: 'Nodes', testId: 'nodes' },
    column: { name: 'nodes', reads: 'nodes' },
  }),
  precision: option({
    value: PlanPrecisionSchema,
    kind: 'choice',
    presence: 'defaulted',
    default: 'bf16',
    spec: { schema: PrecisionSchema, hashed: true },
    cli: { flag: 'precision', commands: ALL, help: 'mixed precision (default bf16)' },
    form: { label: 'Precision' },
    column: { name: 'precision', reads: 'precision' },
  }),
  activationCheckpointing: option({
    value: z.boolean(),
    kind: 'switch',
    presence: 'defaulted',
    default: true,
    spec: { schema: z.boolean(), hashed: true },
    cli: {
      flag: 'activation-checkpointing',
      commands: ALL,
      help: 'recompute activations in backward (default true)',
      negation: 'no-checkpointing',
    },
    form: { label: 'Activation checkpointing' },
  }),
  /** Override of the generated gradient_clipping (SuperOffload loses its overlap when non-zero). */
  gradientClipping: option({ value: z.number().nonnegative(), kind: 'number', presence: 'optional' }),
  /** Override of SuperOffload's cpuadam_cores_perc (else from the measured CPU Adam sweep). */
  cpuadamCoresPerc: option({ value: z.number().gt(0).lt(1), kind: 'number', presence: 'optional' }),
  /** Where ZeRO-Infinity swaps; default /local_nvme. */
  nvmePath: option({ value: z.string(), kind: 'text', presence: 'optional' }),
  /** Search the micro batch (largest that fits, fastest per token) for the recommendation. */
  searchMicroBatch: option({ value: z.boolean(), kind: 'switch', presence: 'defaulted', default: true }),
  /** A global batch to keep (samples per optimizer step): the search then picks micro batch × accumulation with micro × accumulation × GPUs = it. */
  globalBatch: option({
    value: count(),
    kind: 'count',
    presence: 'optional',
    cli: {
      flag: 'global-batch',
      commands: ALL,
      help: 'a global batch to keep (samples per optimizer step): the search picks micro batch × accumulation for it',
    },
  }),
  /** The seed of the synthetic tokens and the initial weights; absent: DEFAULT_SEED (the spec's default). */
  seed: option({
    value: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number (no fractions)' })
      .nonnegative({ error: 'must be 0 or more' }),
    kind: 'whole',
    presence: 'optional',
    default: DEFAULT_SEED,
    spec: { schema: z.number().int().nonnegative().default(DEFAULT_SEED), hashed: false },
    cli: {
      flag: 'seed',
      commands: ALL,
      help: `seed of the synthetic tokens and the initial weights (default ${DEFAULT_SEED}; each rank adds its index)`,
    },
    form: { label: 'Seed', testId: 'seed' },
  }),
};

type Options = typeof WORKLOAD_OPTIONS;
export type WorkloadOptionKey = keyof Options;
export type WorkloadOption = WorkloadOptionDecl & { key: WorkloadOptionKey };

/** The table as a list, in its order, each entry with its key. */
export const WORKLOAD_OPTION_LIST: readonly WorkloadOption[] = (Object.keys(WORKLOAD_OPTIONS) as WorkloadOptionKey[]).map((key) => ({
  key,
  ...(WORKLOAD_OPTIONS[key] as WorkloadOptionDecl),
}));

type WorkloadField<O> = O extends { value: infer V extends z.ZodType; presence: infer P }
  ? P extends 'required'
    ? V
    : P extends 'defaulted'
      ? z.ZodDefault<V>
      : z.ZodOptional<V>
  : never;

/** The workload's fields (WorkloadSchema is the model and these). */
export function workloadOptionShape(): { [K in WorkloadOptionKey]: WorkloadField<Options[K]> } {
  const shape: Record<string, z.ZodType> = {};
  for (const o of WORKLOAD_OPTION_LIST)
    shape[o.key] =
      o.presence === 'required' ? o.value : o.presence === 'defaulted' ? o.value.default(o.default as never) : o.value.optional();
  return shape as never;
}

/** The overrides' fields: the values only, no defaults (an absent field keeps the scenario's value). */
export function workloadOverrideShape(): { [K in WorkloadOptionKey]: Options[K]['value'] } {
  return Object.fromEntries(WORKLOAD_OPTION_LIST.map((o) => [o.key, o.value])) as never;
}

type SpecKey = { [K in WorkloadOptionKey]: Options[K] extends { spec: object } ? K : never }[WorkloadOptionKey];
/** The spec-carried options' keys, in order. */
export const SPEC_OPTION_KEYS = WORKLOAD_OPTION_LIST.filter((o) => o.spec).map((o) => o.key) as SpecKey[];
/** The spec-carried options that determine speed (the config hash's basis, with engine, config and model). */
export const HASHED_OPTION_KEYS = WORKLOAD_OPTION_LIST.filter((o) => o.spec?.hashed).map((o) => o.key) as SpecKey[];

/** The RunSpec's workload fields from the table (the model is run-spec.ts's own). */
export function specOptionShape(): { [K in SpecKey]: Options[K] extends { spec: { schema: infer S } } ? S : never } {
  return Object.fromEntries(WORKLOAD_OPTION_LIST.filter((o) => o.spec).map((o) => [o.key, o.spec!.schema])) as never;
}

/** The spec-carried values a workload sets (seed only where given: the spec's default otherwise). */
export function specOptionValues(workload: Partial<Record<WorkloadOptionKey, unknown>>): Record<string, unknown> {
  return Object.fromEntries(SPEC_OPTION_KEYS.filter((k) => workload[k] !== undefined).map((k) => [k, workload[k]]));
}

export type FormOptionKey = { [K in WorkloadOptionKey]: Options[K] extends { form: object } ? K : never }[WorkloadOptionKey];
/** The options the Plan form shows, in order. */
export const FORM_OPTION_KEYS = WORKLOAD_OPTION_LIST.filter((o) => o.form).map((o) => o.key) as FormOptionKey[];
/** The Plan form's values: every form option, each filled (its default to start). */
export type WorkloadFormValues = { [K in FormOptionKey]: z.output<Options[K]['value']> };

/** What a workload is when a field is not given: the Plan form starts from these, and `plan`, `run`
 *  and `tune` use them for a flag left out (one place, so the CLI and the UI agree). */
export const WORKLOAD_DEFAULTS: WorkloadFormValues = Object.fromEntries(
  FORM_OPTION_KEYS.map((k) => [k, WORKLOAD_OPTIONS[k].default]),
) as WorkloadFormValues;

/** The values of a choice option (its enum's), for the usage line and the form's select. */
export function choicesOf(o: Pick<WorkloadOptionDecl, 'value'>): string[] {
  const options = (o.value as { options?: unknown }).options;
  return Array.isArray(options) ? options.map(String) : [];
}

/** snake_case of a key: the option's CSV column. */
export function csvColumnOf(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A runs column of the workload: its name, the reading it keeps (also its RunSummary field), whether a count. */
export interface WorkloadColumn {
  name: string;
  reads: WorkloadColumnField;
  count: boolean;
}

/** The runs table's workload columns, in the table's order. */
export const WORKLOAD_COLUMNS: readonly WorkloadColumn[] = WORKLOAD_OPTION_LIST.flatMap((o) =>
  o.column ? [{ ...o.column, count: o.kind === 'count' }] : [],
);
