// The README's commands, run as written by a new user. The serve example
// said `--data-dir ~/offload-data` while every CLI example uses the default folder: the setup, the
// measurements and the sweep made in the browser were not there for `runs`, `compare`, `plan`
// ('no measurements of machine … are stored'). And each CLI example without a placeholder must
// parse with the CLI's own flag table (kernel/argv.ts over cli/flags.ts), as it would typed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../../electron/cli/commands';
import { flagsOf } from '../../../electron/cli/flags';
import { parseArgv } from '../../../electron/kernel';

const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');
/** The lines of the README's ```sh blocks, comments cut. */
const shellLines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1].split('\n'))
  .map((l) => l.replace(/\s+#.*$/, '').trim())
  .filter((l) => l && !l.startsWith('#'));

function dataDirOf(line: string): string | null {
  return line.match(/--data-dir\s+(\S+)/)?.[1] ?? null;
}

describe("the README's commands, as written", () => {
  const cliLines = shellLines.filter((l) => l.startsWith('npm run cli -- '));
  const serveLines = shellLines.filter((l) => l.startsWith('npm run serve'));

  it('serve and the CLI examples use one data folder', () => {
    expect(serveLines.length).toBeGreaterThan(0);
    expect(cliLines.length).toBeGreaterThan(5);
    // The CLI examples use the default folder (a `--data-dir D` placeholder aside): so must serve's.
    const cliFolders = new Set(cliLines.map(dataDirOf).filter((d) => d !== null && d !== 'D'));
    expect([...cliFolders]).toEqual([]);
    for (const line of serveLines) expect(dataDirOf(line), line).toBeNull();
    expect(readme.replace(/\s+/g, ' ')).toContain('same per-user folder as the desktop app and the CLI');
  });

  it("every CLI example without a placeholder parses with the CLI's own flags", () => {
    const concrete = cliLines.filter((l) => !/[<>[\]…|]/.test(l) && !/\s(D|N|DIR)(\s|$)/.test(l));
    expect(concrete.length).toBeGreaterThan(10);
    for (const line of concrete) {
      const [name, ...rest] = line.slice('npm run cli -- '.length).split(/\s+/);
      expect(Object.keys(commands), line).toContain(name);
      expect(() => parseArgv(rest, flagsOf(name)!, name), line).not.toThrow();
    }
  });
});
