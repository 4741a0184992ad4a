// The workload's flags of `plan`, `run` and `tune`, made from the contract's one declaration of each
// option (contract/workload-options.ts): the flag table's entries (cli/flags.ts), the usage lines and
// help, and the reading and checking of the values. Before, each command kept its own: `plan
// --no-checkpointing` where `run` said `--activation-checkpointing false`, `tune` took neither, and
// `run --ds-config` read both spellings by hand. Old spellings stay accepted as declared aliases.
import {
  WORKLOAD_OPTION_LIST,
  choicesOf,
  firstIssue,
  type WorkloadCommand,
  type WorkloadOption,
  type WorkloadOverrides,
} from '../contract';
import { UsageError, type FlagSpec, type Flags } from '../kernel';
import { countFlag, wholeFlag } from './flag-values';

type CliOption = WorkloadOption & { cli: NonNullable<WorkloadOption['cli']> };

/** The options `command` takes a flag for, in the table's order. */
export function workloadOptionsOf(command: WorkloadCommand): CliOption[] {
  return WORKLOAD_OPTION_LIST.filter((o): o is CliOption => o.cli !== undefined && o.cli.commands.includes(command));
}

/** The flag table's entries of `command`'s workload flags (a switch's negation as a plain switch). */
export function workloadFlagSpec(command: WorkloadCommand): FlagSpec {
  const spec: FlagSpec = {};
  for (const o of workloadOptionsOf(command)) {
    spec[o.cli.flag] = o.kind === 'switch' ? 'switch-or-value' : 'string';
    if (o.cli.negation) spec[o.cli.negation] = 'boolean';
  }
  return spec;
}

/** What follows a flag in the usage line: `N`, `bf16|fp16`, `[true|false]`. */
function placeholder(o: CliOption): string {
  if (o.cli.placeholder) return o.cli.placeholder;
  if (o.kind === 'choice') return choicesOf(o).join('|');
  if (o.kind === 'switch') return '[true|false]';
  if (o.kind === 'count' || o.kind === 'whole') return 'N';
  return o.kind === 'number' ? 'X' : 'TEXT';
}

/** `[--seq N] [--micro-batch N] … [--activation-checkpointing [true|false]]`: the usage line's workload part. */
export function workloadSynopsis(command: WorkloadCommand): string {
  return workloadOptionsOf(command)
    .map((o) => `[--${o.cli.flag} ${placeholder(o)}]`)
    .join(' ');
}

/** One line per workload flag with its help, and its other spelling. */
export function workloadHelp(command: WorkloadCommand): string {
  const rows = workloadOptionsOf(command).map((o) => [
    `--${o.cli.flag} ${placeholder(o)}`,
    `${o.cli.help}${o.cli.negation ? `; --${o.cli.negation} is --${o.cli.flag} false` : ''}`,
  ]);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return ['workload flags (plan, run and tune take the same):', ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`)].join(
    '\n',
  );
}

function refuse(o: CliOption, message: string): never {
  throw Object.assign(new UsageError(`--${o.cli.flag} ${message}`), { field: o.cli.flag });
}

/** A switch's value: true alone or with true/on/1, false with false/off/0 or its negation. */
function switchValue(flags: Flags, o: CliOption): boolean | undefined {
  const v = flags[o.cli.flag];
  const negated = o.cli.negation !== undefined && flags[o.cli.negation] === true;
  if (negated && v !== undefined)
    throw Object.assign(new UsageError(`give --${o.cli.flag} or --${o.cli.negation}, not both`), { field: o.cli.flag });
  if (negated) return false;
  if (v === undefined) return undefined;
  if (v === true || v === 'true' || v === 'on' || v === '1') return true;
  if (v === 'false' || v === 'off' || v === '0') return false;
  throw new UsageError(`--${o.cli.flag} must be true or false, got ${String(v)}`);
}

/** One option's value from its flag, checked as its kind and its contract schema say; undefined when not given. */
export function readWorkloadOption(flags: Flags, o: CliOption): unknown {
  const name = o.cli.flag;
  let value: unknown;
  switch (o.kind) {
    case 'count':
      value = countFlag(flags, name);
      break;
    case 'whole':
      value = wholeFlag(flags, name);
      break;
    case 'switch':
      return switchValue(flags, o);
    case 'number': {
      const v = flags[name];
      if (v === undefined) return undefined;
      value = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(value)) refuse(o, `must be a number (got ${String(v)})`);
      break;
    }
    default: {
      const v = flags[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'string') refuse(o, 'needs a value');
      value = v;
      if (o.kind === 'choice' && !choicesOf(o).includes(v)) refuse(o, `must be one of ${choicesOf(o).join(', ')} (got ${v})`);
    }
  }
  if (value === undefined) return undefined;
  const checked = o.value.safeParse(value);
  if (!checked.success) refuse(o, `${firstIssue(checked.error).message} (got ${String(flags[name])})`);
  return checked.data;
}

/** The workload fields `command`'s flags give (only those given: the caller adds its defaults). */
export function readWorkloadFlags(flags: Flags, command: WorkloadCommand): WorkloadOverrides {
  const workload: Record<string, unknown> = {};
  for (const o of workloadOptionsOf(command)) {
    const value = readWorkloadOption(flags, o);
    if (value !== undefined) workload[o.key] = value;
  }
  return workload;
}
