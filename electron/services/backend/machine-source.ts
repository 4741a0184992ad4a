// The one machine every handler sees: detected once per backend (hardware does not change under a
// running app) and refreshed on request — or, with --machine FILE, a saved `detect --json` (a GPU
// box's description viewed on a laptop), validated and marked as not detected here.
import fs from 'node:fs';
import { describeIssue, MachineSchema, type Machine } from '../../contract';
import { detectMachine } from '../hardware';

export type MachineSource = (refresh?: boolean) => Promise<Machine>;

export function loadMachineFile(file: string): Machine {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `--machine ${file}: cannot read it as JSON (${(error as Error).message}). Save one with \`npm run cli -- detect --json > machine.json\`.`,
    );
  }
  const parsed = MachineSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`--machine ${file}: ${describeIssue(parsed.error)} (expected the JSON that \`npm run cli -- detect --json\` prints)`);
  }
  const machine = parsed.data;
  return {
    ...machine,
    warnings: [
      {
        id: 'machine-from-file',
        severity: 'info',
        message: `This is the machine described in ${file} (detected ${machine.detectedAt}), not the one running the app.`,
        fix: 'Start without --machine to see this machine.',
      },
      ...machine.warnings,
    ],
  };
}

export function createMachineSource(machineFile?: string): MachineSource {
  if (machineFile) {
    const machine = loadMachineFile(machineFile);
    // eslint-disable-next-line @typescript-eslint/require-await -- the source's type is a function returning a Promise; a loaded file needs no wait
    return async () => machine;
  }
  let cached: Promise<Machine> | null = null;
  return (refresh = false) => {
    if (!cached || refresh) {
      cached = detectMachine();
      cached.catch(() => (cached = null)); // a failed detection is not cached
    }
    return cached;
  };
}
