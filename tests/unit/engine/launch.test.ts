// One launcher form: several GPUs on one host go through `python -m deepspeed.launcher.runner`,
// the module a multi-node launch (services/cluster) runs with a hostfile.
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../../electron/services/engine';

describe('buildLaunch', () => {
  it('runs one process as python -u bench.py', () => {
    expect(buildLaunch({ python: '/v/bin/python', benchScript: '/e/bench.py', specFile: '/s.json', gpus: 1 })).toEqual({
      command: '/v/bin/python',
      args: ['-u', '/e/bench.py', '--spec', '/s.json'],
      cwd: '/e',
    });
  });
  it('runs several GPUs through the interpreter with -m deepspeed.launcher.runner', () => {
    const launch = buildLaunch({ python: '/v/bin/python', benchScript: '/e/bench.py', specFile: '/s.json', gpus: 4 });
    expect(launch.command).toBe('/v/bin/python');
    expect(launch.args).toEqual([
      '-u',
      '-m',
      'deepspeed.launcher.runner',
      '--num_gpus',
      '4',
      '--bind_cores_to_rank',
      '/e/bench.py',
      '--spec',
      '/s.json',
    ]);
  });
});
