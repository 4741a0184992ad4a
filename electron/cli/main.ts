// Command-line front end over the same backend as the app: `npm run cli -- <command> [flags]`.
import path from 'node:path';
import { createBackend } from '../services/backend';
import { defaultDataDir } from '../services/backend/data-dir';
import { inferSpec, nearest, parseArgv, UsageError } from '../server/args';
import { runServe } from '../server/serve';
import { commands } from './commands';
import { flagsOf } from './flags';
import type { CommandContext } from './command';

const USAGE = `Offload Studio CLI

usage: npm run cli -- <command> [flags]

commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}
  serve      start the headless server (same as npm run serve)

common flags: --data-dir D (default: the app's per-user data folder), --json`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  if (name === 'serve') {
    await runServe(rest);
    return -1; // keeps running
  }
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
  const { flags, positionals } = parseArgv(rest, spec, name);
  const dataDir = typeof flags['data-dir'] === 'string' ? path.resolve(flags['data-dir']) : defaultDataDir();
  const backend = createBackend({ dataDir, transport: 'cli' });
  const context: CommandContext = { backend, flags, positionals, json: flags.json === true, out: (s) => process.stdout.write(s + '\n') };
  try {
    return await command.run(context);
  } finally {
    await backend.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}`);
      process.exit(error.exitCode);
    }
    const field = (error as { field?: string }).field;
    console.error(`error: ${error instanceof Error ? error.message : String(error)}${field ? ` (field: ${field})` : ''}`);
    process.exit(1);
  },
);
