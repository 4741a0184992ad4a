// The one command-line parser of serve and the CLI: node:util parseArgs over a declared set of
// flags per command. A flag that is not declared is refused (exit 2) with the nearest valid one;
// a string flag without its value is refused too. Kept hand-written: only the suggestion (edit
// distance) and the one flag kind parseArgs lacks, a boolean that may carry an explicit value
// (`--activation-checkpointing false`).
import { parseArgs } from 'node:util';

/**
 * string: takes a value (`--seq 2048`, `--seq=2048`); boolean: a switch (`--json`);
 * switch-or-value: a switch that may be followed by true/false/on/off/1/0/yes/no, given to the
 * command as that string ('true' when alone); repeatable: a string flag that may be given more than
 * once (`--allow-host a --allow-host b`), every value in `lists` (the last also in `flags`).
 */
export type FlagKind = 'string' | 'boolean' | 'switch-or-value' | 'repeatable';
export type FlagSpec = Record<string, FlagKind>;
export type Flags = Record<string, string | boolean>;

/** A mistake in how the command was called: printed with a hint, exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Edit distance with adjacent transpositions counted as one edit ("stpes" → "steps" is 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** The closest name, if it is close enough to be what was meant (or a prefix of it). */
export function nearest(name: string, candidates: string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(name) && name.length >= 2 ? 0.5 : editDistance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

const SWITCH_VALUE = /^(true|false|on|off|1|0|yes|no)$/i;

/**
 * Parse argv for one command. `what` names it in messages ("run", "serve"). Returns the flags
 * (strings and booleans, as commands read them) and the positionals in order.
 */
export function parseArgv(
  argv: string[],
  spec: FlagSpec,
  what: string,
): { flags: Flags; positionals: string[]; lists?: Record<string, string[]> } {
  const names = Object.keys(spec);
  // Refuse unknown flags first, with a suggestion (parseArgs' own error names no alternative).
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) continue;
    if (arg === '-h' && spec.help === 'boolean') continue;
    const name = arg.replace(/^--?/, '').split('=')[0];
    if (Object.hasOwn(spec, name) && arg.startsWith('--')) {
      if ((spec[name] === 'string' || spec[name] === 'repeatable') && !arg.includes('=')) i++; // its value, whatever it looks like
      continue;
    }
    const hint = nearest(name, names);
    throw new UsageError(
      `unknown flag ${arg.split('=')[0]} for '${what}'${hint ? `; did you mean --${hint}?` : ''}\n` +
        `valid flags: ${names.map((n) => `--${n}`).join(' ')}`,
    );
  }
  // switch-or-value → an explicit string, so parseArgs sees a plain string option.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null;
    // A string option followed by a word that starts with '-': parseArgs calls that "ambiguous", which
    // says neither what is wrong nor what to do. Another of this command's flags there means the value
    // was left out; anything else ("--seq -5", "--out -") is the value, joined as --seq=-5 so the
    // command's own check says what is wrong with it.
    if (name && (spec[name] === 'string' || spec[name] === 'repeatable') && argv[i + 1]?.startsWith('-')) {
      const next = argv[i + 1];
      const nextName = next.replace(/^--?/, '').split('=')[0];
      if (next.startsWith('--') ? Object.hasOwn(spec, nextName) || next === '--' : next === '-h' && spec.help === 'boolean')
        throw new UsageError(`${what}: --${name} needs a value right after it (got the flag ${next.split('=')[0]}), e.g. --${name} VALUE`);
      args.push(`--${name}=${argv[++i]}`);
      continue;
    }
    if (name && spec[name] === 'switch-or-value') {
      const next = argv[i + 1];
      if (next !== undefined && SWITCH_VALUE.test(next)) args.push(`--${name}=${argv[++i]}`);
      else args.push(`--${name}=true`);
    } else args.push(arg);
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      i = argv.length;
    }
  }
  const options = Object.fromEntries(
    names.map((n) => [
      n,
      {
        type: spec[n] === 'boolean' ? ('boolean' as const) : ('string' as const),
        ...(spec[n] === 'repeatable' ? { multiple: true } : {}),
        ...(n === 'help' && spec[n] === 'boolean' ? { short: 'h' } : {}),
      },
    ]),
  );
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals: true });
    const flags: Flags = {};
    const lists: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(values)) {
      if (typeof v === 'string' || typeof v === 'boolean') flags[k] = v;
      else if (Array.isArray(v)) {
        lists[k] = v.filter((x): x is string => typeof x === 'string');
        if (lists[k].length) flags[k] = lists[k][lists[k].length - 1];
      }
    }
    // `lists` only for a command that declares a repeatable flag (the others' result is unchanged).
    return Object.values(spec).includes('repeatable') ? { flags, positionals, lists } : { flags, positionals };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const missing = /^Option '(--[\w-]+)(?: <value>)?' argument missing/.exec((error as Error).message);
    if (missing) throw new UsageError(`${what}: ${missing[1]} needs a value right after it, e.g. ${missing[1]} VALUE`);
    if (code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(`${what}: ${(error as Error).message.split('\n')[0]}`);
    throw error;
  }
}

/**
 * The flags as written, for a command that has not declared its own yet (the old lenient reading:
 * `--x=v` and `--x v` take a value, a lone `--x` is a switch). Nothing is refused this way; the CLI
 * warns, and tests/unit/cli/flags.test.ts fails until the command is in the table.
 */
export function inferSpec(argv: string[]): FlagSpec {
  const spec: FlagSpec = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (!arg.startsWith('--')) continue;
    const [name, inline] = arg.slice(2).split('=', 2);
    const takesValue = inline !== undefined || (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--'));
    spec[name] = takesValue ? 'string' : 'boolean';
    if (takesValue && inline === undefined) i++;
  }
  return spec;
}

/** `serve` (npm run serve, `offload-studio serve`): the headless server's flags. */
export const SERVE_FLAGS: FlagSpec = {
  port: 'string',
  host: 'string',
  'allow-remote': 'boolean',
  'allow-host': 'repeatable',
  'data-dir': 'string',
  machine: 'string',
  token: 'string',
  'token-file': 'string',
  help: 'boolean',
};
