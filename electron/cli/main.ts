// Command-line front end over the same backend as the app: `npm run cli -- <command> [flags]`.
import path from 'node:path';
import { createBackend } from '../services/backend';
import { defaultDataDir } from '../services/backend/data-dir';
import { parseFlags, runServe } from '../server/serve';
import { commands } from './commands';
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
    console.error(`unknown command '${name}'.\n\n${USAGE}`);
    return 2;
  }
  const flags = parseFlags(rest);
  const positionals = rest.filter((a, i) => !a.startsWith('--') && !(i > 0 && rest[i - 1].startsWith('--') && !rest[i - 1].includes('=') && typeof flags[rest[i - 1].slice(2)] === 'string'));
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
    const field = (error as { field?: string }).field;
    console.error(`error: ${error instanceof Error ? error.message : String(error)}${field ? ` (field: ${field})` : ''}`);
    process.exit(1);
  },
);
