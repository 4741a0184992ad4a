// A runner's error text with ESC/CR/U+202E once reached the terminal raw through the CLI. Against
// a real process (the hostile-python fixture): `run` prints it, text and --json, with those
// characters escaped. The test failed on the code before its fix.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { node, tmpDir } from './helpers';

const HOSTILE_PYTHON = path.join(import.meta.dirname, 'fixtures', 'hostile-python');

describe('runner text never drives the terminal', () => {
  it(
    'an error line with ESC sequences, CR and U+202E is printed by the CLI with those characters escaped',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmpDir('os-small-term-');
      for (const json of [false, true]) {
        const r = await node(
          [
            'electron/cli/main.ts',
            'run',
            '--model',
            'tiny-llama',
            '--strategy',
            'zero3-offload',
            '--seq',
            '32',
            '--steps',
            '2',
            '--warmup',
            '1',
            '--python',
            HOSTILE_PYTHON,
            '--data-dir',
            dataDir,
            ...(json ? ['--json'] : []),
          ],
          { HOSTILE_MODE: 'evil-error' },
          90_000,
        );
        expect(r.out, r.out).toMatch(/boom/);
        expect(r.out).not.toMatch(/[\u001b\r\u202e\u009b\u0007]/);
        expect(r.out).toMatch(/\\u001b\[2J/);
        expect(r.out).toMatch(/\\u202e/);
      }
    },
  );
});
