// Command-line front end over the same backend as the app: `npm run cli -- <command> [flags]`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBackend } from '../services/backend';
import { defaultDataDir } from '../services/backend/data-dir';
import { inferSpec, nearest, parseArgv, UsageError } from '../kernel';
import { terminalSafe } from './format';
import { commands } from './commands';
import { flagsOf } from './flags';
import { resolveUserPaths } from './paths';
import type { CommandContext } from './command';

const USAGE = `Offload Studio CLI

usage: npm run cli -- <command> [flags]

commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}
  serve      start the headless server (same as npm run serve)

common flags: --data-dir D (default: the app's per-user data folder), --json`;

/**
 * `serve` is the headless server's own entry, run as a child with this terminal (the CLI imports
 * nothing from electron/server): from source under tsx (this process's loader flags carried), or
 * dist/server/serve.mjs beside dist/cli/cli.mjs after a build. Signals are passed on; its exit code is ours.
 */
function runServeEntry(argv: string[]): Promise<number> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const entry = [path.join(here, '..', 'server', 'cli-entry.ts'), path.join(here, '..', 'server', 'serve.mjs')].find((f) =>
    fs.existsSync(f),
  );
  if (!entry) throw new Error(`the serve entry is missing beside ${here}; run \`npm run build\` or \`npm run serve\``);
  const child = spawn(process.execPath, [...process.execArgv, entry, ...argv], { stdio: 'inherit', shell: false });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 1)));
  });
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  if (name === 'serve') return runServeEntry(rest);
  const command = commands[name];
  if (!command) {
    const hint = nearest(name, [...Object.keys(commands), 'serve']);
    console.error(`unknown command '${name}'${hint ? `; did you mean '${hint}'?` : ''}\n\n${USAGE}`);
    return 2;
  }
  let spec = flagsOf(name);
  if (!spec) {
    console.error(`warning: command '${name}' declares no flags in electron/cli/flags.ts; its flags are read as written, unchecked`);
    spec = { ...inferSpec(rest), 'data-dir': 'string', json: 'boolean', help: 'boolean' };
  }
  // Paths are the user's: relative to where the command was typed (INIT_CWD under npm run).
  const parsed = parseArgv(rest, spec, name);
  const { flags, positionals } = resolveUserPaths(name, parsed.flags, parsed.positionals);
  const dataDir = typeof flags['data-dir'] === 'string' ? flags['data-dir'] : defaultDataDir();
  const backend = createBackend({ dataDir, transport: 'cli' });
  const context: CommandContext = {
    backend,
    flags,
    positionals,
    json: flags.json === true,
    out: (s) => process.stdout.write(terminalSafe(s) + '\n'),
  };
  try {
    return await command.run(context);
  } finally {
    await backend.close();
  }
}

/** Exits once stdout has taken everything written: process.exit() at once would cut a piped
 *  `plan --json` at the pipe's 64 KiB (the write callback runs after the earlier writes are flushed). */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/**
 * The backend's refusals of a value the command line gave (an unknown model or strategy, a workload or
 * request the contract refuses, a strategy this machine cannot run): usage errors like the CLI's own
 * checks, exit 2 in every command — before, the same kind of mistake exited 1 or 2 by command.
 */
const REFUSED_INPUT = new Set(['bad_request', 'bad_workload', 'unknown_model', 'cannot_run_here', 'invalid_hf_config']);
/**
 * Refusals of something the command line named — a run id, cluster, file, folder or report path that is
 * not there or cannot be used (`runs show nope`, `export --out` into a missing folder or over a file
 * without --overwrite, `--machine` that is not a detect --json, a spec planned for another machine):
 * usage errors when they name the field they are about. Without a field (the bundled samples missing,
 * TMPDIR unusable) they are about this installation or machine, exit 1, as a run that fails is.
 */
const REFUSED_GIVEN = new Set([
  'not_found',
  'bad_path',
  'bad_file',
  'exists',
  'too_large',
  'bad_machine',
  'bad_model_file',
  'bad_config',
  'unsupported_model',
  'planned_elsewhere',
]);
function isUsageError(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  const e = error as { code?: unknown; field?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && REFUSED_GIVEN.has(e.code) && typeof e.field === 'string' && e.field !== '') return true;
  // the tuner's unknown strategy id (tuner/presets.ts) carries its field, not a code
  return (
    (typeof e?.code === 'string' && REFUSED_INPUT.has(e.code)) ||
    (e?.field === 'strategyId' && /^unknown strategy /.test(String(e.message)))
  );
}

/** The message, and the field it is about where the message does not already name it (as the UI does). */
function withField(message: string, field: string | undefined): string {
  return field && !message.includes(field) ? `${message} (field: ${field})` : message;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) exitAfterFlush(code);
  },
  (error) => {
    if (isUsageError(error)) {
      const field = error instanceof UsageError ? undefined : (error as { field?: string }).field;
      console.error(terminalSafe(`error: ${withField((error as Error).message, field)}`));
      process.exit(2);
    }
    const field = (error as { field?: string }).field;
    console.error(terminalSafe(`error: ${withField(error instanceof Error ? error.message : String(error), field)}`));
    process.exit(1);
  },
);
