// No dead-end advice: every command the app suggests must exist and run as written from a
// clone — `npm run cli -- …`, not `offload-studio …` (not on PATH in a clone), not a bare `measure`,
// not a "History → Import" the app has no page for. Each suggestion below is taken from the message a
// user sees, and its command and flags are parsed with the CLI's own table (kernel/argv.ts over
// cli/flags.ts), so a renamed flag or command fails here. The source scan catches the forms that
// never run as written wherever they appear in user-facing text.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../../electron/cli/commands';
import { flagsOf } from '../../../electron/cli/flags';
import { parseArgv } from '../../../electron/kernel';
import { createBackend } from '../../../electron/services/backend';
import { platformPieces } from '../../../electron/services/environment/missing';
import { platformWarnings } from '../../../electron/services/hardware/warnings';
import { buildMachine } from '../../../electron/services/hardware';
import { parseMachine } from '../../../electron/services/tuner';
import { loadHost } from '../hardware/fixture-host';

const root = path.resolve(import.meta.dirname, '../../..');

/** Every `npm run cli -- …` in a text, as the argument vector a shell would give the CLI. */
function suggestions(text: string): string[][] {
  return [...text.matchAll(/`npm run cli -- ([^`]+)`/g)].map((m) =>
    m[1]
      .replace(/\s*>.*$/, '')
      .trim()
      .split(/\s+/),
  );
}

/** The suggestion names a command the CLI has, with flags that command takes (parsed as the CLI parses them). */
function expectRunnable(argv: string[]): void {
  const [name, ...rest] = argv;
  expect(Object.keys(commands), `'${name}' is not a CLI command`).toContain(name);
  expect(() => parseArgv(rest, flagsOf(name)!, name), argv.join(' ')).not.toThrow();
  if (name === 'cluster') expect(['list', 'save', 'delete', 'detect', 'preflight', 'stage', 'launch', 'assumptions']).toContain(rest[0]);
}

function expectAdvice(text: string, atLeast = 1): void {
  expect(text).not.toMatch(/`offload-studio |History →|into History|\(CLI: /);
  const found = suggestions(text);
  expect(found.length, text).toBeGreaterThanOrEqual(atLeast);
  for (const argv of found) expectRunnable(argv);
}

describe('suggested commands run as written from a clone', () => {
  it('macOS and Windows: run the engine elsewhere and bring the runs here, with commands that exist', () => {
    expectAdvice(platformPieces('darwin')[0].fix ?? '', 2);
    const os = (platform: string) => ({ os: { platform, distro: '', release: '', kernel: '', arch: 'x64' }, gpus: [] });
    for (const w of [...platformWarnings(os('darwin')), ...platformWarnings(os('win32'))]) {
      expect(w.fix).toContain('`npm run serve`');
      expect(w.fix).not.toContain('npx offload-studio');
    }
    expectAdvice(platformWarnings(os('darwin'))[0].fix ?? '', 2);
  });

  it('the plan notes say how to measure this machine, and how to import another machine’s measurements', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-advice-'));
    const backend = createBackend({ dataDir, transport: 'cli' });
    try {
      const here = await backend.invoke('plan/compute', { workload: { model: 'tiny-llama', seqLen: 64, microBatch: 1, gpus: 1 } });
      expectAdvice(here.notes.find((n) => n.startsWith('Host figures'))!);
      const h200 = buildMachine(loadHost('h200-sxm-x86'));
      const there = await backend.invoke('plan/compute', {
        workload: { model: 'tiny-llama', seqLen: 64, microBatch: 1, gpus: 1 },
        machine: h200,
      });
      expectAdvice(there.notes.find((n) => n.startsWith('Host figures'))!);
      // A file that is not a runs file says what writes one.
      const refused = await backend.invoke('runs/import', { content: 'not json', name: 'x.runs.json' }).catch((e: Error) => e.message);
      expectAdvice(String(refused));
    } finally {
      await backend.close();
    }
  });

  it('a --machine file that is not a detect --json says how to make one', () => {
    let message = '';
    try {
      parseMachine({ machineId: 1 }, '--machine x.json');
    } catch (error) {
      message = (error as Error).message;
    }
    expectAdvice(message);
  });

  it('no user-facing text in the app suggests a command that cannot run as written', () => {
    const files = [
      ...fs.readdirSync(path.join(root, 'electron'), { recursive: true }).map((f) => path.join(root, 'electron', String(f))),
      ...fs.readdirSync(path.join(root, 'renderer/src'), { recursive: true }).map((f) => path.join(root, 'renderer/src', String(f))),
    ].filter((f) => /\.tsx?$/.test(f));
    const bad: string[] = [];
    for (const file of files)
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.trim();
          if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return; // comments are for us
          if (/\\?`offload-studio |History → |into History here|\(CLI: /.test(code))
            bad.push(`${path.relative(root, file)}:${i + 1}: ${code.slice(0, 160)}`);
          for (const argv of suggestions(code.replace(/\\`/g, '`').replace(/\$\{[^}]*\}/g, 'NAME')))
            try {
              expectRunnable(argv);
            } catch (error) {
              bad.push(
                `${path.relative(root, file)}:${i + 1}: npm run cli -- ${argv.join(' ')} (${(error as Error).message.split('\n')[0]})`,
              );
            }
        });
    expect(bad).toEqual([]);
  });
});
