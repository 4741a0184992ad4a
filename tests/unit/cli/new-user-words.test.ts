// What a new user reads in the CLI (issue 49.10), in-process against a real backend and store:
// `runs show ID` shows the run (it was a usage error without --resources); `export` onto a file
// that exists names --overwrite (the backend's words say "overwrite it", which the app's dialog
// offers); before an engine exists the words name the script that makes one, not only the app's Setup.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../../electron/cli/commands';
import type { CommandContext } from '../../../electron/cli/command';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { openHistory } from '../../../electron/services/history';
import { NO_TORCH_ADAM_PROBE } from '../../../electron/services/hardware/measure';
import { seedRun, tempDir } from '../reports/fixtures';

const ID = 'shown-0';
let backend: Backend;
let dir: string;

beforeAll(() => {
  dir = tempDir('new-user-words-');
  const store = openHistory(dir);
  seedRun(store, { id: ID, strategy: 'zero3-offload', stepSeconds: 2, steps: 4, warmup: 1, gpus: 1, tags: ['first'] });
  store.close();
  backend = createBackend({ dataDir: dir, transport: 'cli' });
});
afterAll(async () => {
  await backend?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function run(name: string, positionals: string[], flags: Record<string, string | boolean> = {}): Promise<string> {
  const lines: string[] = [];
  const ctx: CommandContext = { backend, flags, positionals, json: false, out: (l) => lines.push(l) };
  expect(await commands[name].run(ctx)).toBe(0);
  return lines.join('\n');
}

describe('CLI words for a new user', () => {
  it('runs show ID prints the run: what ran, how it ended, its figures and where to look next', async () => {
    const text = await run('runs', ['show', ID]);
    expect(text).toMatch(new RegExp(`^${ID}  completed  llama-3.3-70b  ZeRO-3 Offload \\(zero3-offload, deepspeed\\)`));
    expect(text).toContain('steps: 4 measured after 1 warm-up');
    // dates as the Run page writes them, not ISO stamps
    expect(text).toMatch(/started \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    expect(text).toMatch(/TFLOPS\/GPU, [\d.]+ s\/step, .* \(median of measured steps\)/);
    expect(text).toContain('tags: first');
    expect(text).toContain(`runs show ${ID} --resources`);
  });

  it('export onto a file that exists names --overwrite', async () => {
    const out = path.join(dir, 'report.csv');
    fs.writeFileSync(out, 'mine\n');
    await expect(run('export', [], { runs: ID, format: 'csv', out })).rejects.toThrow(/already exists.*--overwrite/);
    expect(fs.readFileSync(out, 'utf8')).toBe('mine\n');
  });

  it('before an engine exists, the words name bash scripts/setup-engine-venv.sh', () => {
    expect(NO_TORCH_ADAM_PROBE).toContain('bash scripts/setup-engine-venv.sh');
    const signatures = JSON.parse(
      fs.readFileSync(path.join(import.meta.dirname, '../../../resources/engine/error-signatures.json'), 'utf8'),
    ) as { classes: Record<string, { fix: string | null }> };
    expect(signatures.classes.spawn.fix).toContain('bash scripts/setup-engine-venv.sh');
  });

  it('plan on this GPU-less machine: GPU memory and an unused NVMe read "—", as the Plan page shows them', async () => {
    const text = await run('plan', [], { model: 'tiny-llama', seq: '512' });
    const row = text.split('\n').find((l) => l.startsWith('ZeRO-Offload (zero2-offload)'))!;
    // strategy, verdict, GPU/GPU, host/node, NVMe: the page's table has "—" where the CLI printed "4.5 GiB" and "0 B"
    expect(row).toMatch(/^ZeRO-Offload \(zero2-offload\)\s+fits\s+—\s+6\.5 GiB\s+—\s+1\s/);
    expect(text).not.toMatch(/\s0 B\s/);
  });
});
