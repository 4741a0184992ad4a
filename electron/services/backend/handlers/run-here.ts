// Runs and tunes start on the machine the backend runs on. With `serve --machine FILE` (or the app's
// --machine) the backend shows and plans for a saved `detect --json` — another machine's — so a run
// started there would train here against that machine's plan and be stored under its machineId
// (a plan for another machine would run here). Refused with what to do instead.
import { ApiError } from '../../../contract';
import type { BackendContext } from '../context';
import { isFromFile } from './calibration';

export async function refuseRunsForFileMachine(ctx: BackendContext, what: 'runs' | 'tunes'): Promise<void> {
  const machine = await ctx.machine().catch(() => null);
  if (!machine || !isFromFile(machine)) return;
  const gpus = machine.gpus.length ? `${machine.gpus.length}× ${machine.gpus[0].name}` : 'no GPU';
  throw new ApiError(
    'planned_elsewhere',
    `This session plans for ${machine.hostname} (${gpus}), loaded from a file with --machine, not the machine it runs on: ${what} start only from a plan for this machine. Start the app or serve without --machine to run here, or on ${machine.hostname} to run there.`,
    'machine',
  );
}
