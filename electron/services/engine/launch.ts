// The runner's command line: `python -u bench.py --spec FILE` for one process; for several GPUs
// DeepSpeed's launcher in the one form a multi-node launch also uses (services/cluster/launch.ts):
// `python -u -m deepspeed.launcher.runner … bench.py --spec FILE`, by the interpreter itself, so no
// `deepspeed` script has to sit next to it. Always an argument vector.
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
  if (input.gpus <= 1) return { command: input.python, args: ['-u', input.benchScript, '--spec', input.specFile], cwd };
  return {
    command: input.python,
    args: [
      '-u',
      '-m',
      'deepspeed.launcher.runner',
      '--num_gpus',
      String(input.gpus),
      ...(input.bindCores === false ? [] : ['--bind_cores_to_rank']),
      input.benchScript,
      '--spec',
      input.specFile,
    ],
    cwd,
  };
}
