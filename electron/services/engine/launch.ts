// The runner's command line: `python -u bench.py --spec FILE` for one process, or the deepspeed
// launcher (next to the interpreter in its venv) for several GPUs. Always an argument vector.
import path from 'node:path';
import type { RunnerLaunch } from './runner-process';

export interface LaunchInput {
  python: string;
  benchScript: string;
  specFile: string;
  gpus: number;
  /** deepspeed --bind_cores_to_rank: numactl per rank, OMP threads split (CPU Adam speed). */
  bindCores?: boolean;
}

export function buildLaunch(input: LaunchInput): RunnerLaunch {
  const cwd = path.dirname(input.benchScript);
  if (input.gpus <= 1)
    return { command: input.python, args: ['-u', input.benchScript, '--spec', input.specFile], cwd };
  const launcher = path.join(path.dirname(input.python), process.platform === 'win32' ? 'deepspeed.exe' : 'deepspeed');
  return {
    command: launcher,
    args: ['--num_gpus', String(input.gpus), ...(input.bindCores === false ? [] : ['--bind_cores_to_rank']), input.benchScript, '--spec', input.specFile],
    cwd,
  };
}
