// `run --watch` prints two memory figures of different things (issue 49.6): the [resources] line's is
// the whole machine's memory in use, a step line's is this run's resident set. Both once read "host"
// (host 2.6 GiB beside host 930.5 MiB); each now says which it is.
import { describe, expect, it } from 'vitest';
import { progressLine } from '../../../electron/cli/commands/engine';
import { liveLine } from '../../../electron/cli/resources-format';

const lane = (available: boolean) => ({ available, reason: available ? null : 'no NVIDIA GPU on this machine' });

describe('run --watch memory words', () => {
  it('names the machine RAM in use on resource lines and the run RSS on step lines', () => {
    const resources = liveLine({
      sweepId: 's',
      runId: 'r',
      sample: {
        t: 0,
        gpus: [],
        cpuBusyPct: [100, 10],
        memUsedBytes: 2.6 * 2 ** 30,
        memTotalBytes: 7.8 * 2 ** 30,
        swapUsedBytes: null,
        diskReadBps: null,
        diskWriteBps: null,
      },
      availability: { gpu: lane(false), pcie: lane(false), nvlink: lane(false), cpu: lane(true), memory: lane(true), disk: lane(true) },
    });
    expect(resources).toContain('machine RAM used 2.6 GiB of 7.8 GiB');
    const step = progressLine({
      sweepId: 's',
      runId: 'r',
      runIndex: 0,
      runCount: 1,
      strategy: 'zero3-offload',
      repeatIndex: 0,
      step: 3,
      warmup: false,
      stepSeconds: 1.2,
      tflopsPerGpu: 0.01,
      tokensPerSecond: 100,
      loss: 5,
      gpuAllocatedBytes: null,
      gpuReservedBytes: null,
      gpuPeakBytes: null,
      hostRssBytes: 930.5 * 2 ** 20,
      total: 8,
      elapsedSeconds: 10,
      etaSeconds: 5,
    } as never);
    expect(step).toContain('run RSS 930.5 MiB');
    for (const line of [resources, step]) expect(line).not.toMatch(/\bhost \d/);
  });
});
