// The live lanes of a running run: the record grown from `runs/resources-live` samples and the run's
// progress steps is what resourceLanesOption draws (the same chart as a stored run), the steps land on
// the sampler's clock, warm-up's end is marked, a lane not measured has no series, and it stays bounded.
import { describe, expect, it } from 'vitest';
import { appendLiveSample, appendLiveStep, LIVE_CAPACITY, resourceLanesOption, type LiveRecord } from '../../../electron/contract';
import type { LaneAvailability, ResourceLiveEvent } from '../../../electron/contract';

const noGpu = { available: false, reason: 'no NVIDIA GPU on this machine' };
const on = { available: true, reason: null };
const availability: LaneAvailability = { gpu: noGpu, pcie: noGpu, nvlink: noGpu, cpu: on, memory: on, disk: on };
const event = (t: number, busy: number[]): ResourceLiveEvent => ({
  sweepId: 's',
  runId: 'r',
  availability,
  sample: { t, gpus: [], cpuBusyPct: busy, memUsedBytes: 4e9, memTotalBytes: 16e9, swapUsedBytes: 0, diskReadBps: 0, diskWriteBps: 1e6 },
});

describe('live resource record', () => {
  it('grows sample by sample; steps are placed on the sampler clock by the least delayed arrival', () => {
    const t0 = 1_000_000;
    let live: LiveRecord | null = null;
    live = appendLiveSample(live, event(0, [100, 10]), t0 + 40); // 40 ms late
    live = appendLiveSample(live, event(1000, [100, 100]), t0 + 1010); // 10 ms late: the better offset
    expect(live.clockOffsetMs).toBe(t0 + 10);
    live = appendLiveStep(live, { step: 1, warmup: true, stepSeconds: 0.9 }, t0 + 1510)!;
    live = appendLiveStep(live, { step: 2, warmup: false, stepSeconds: 0.4 }, t0 + 1910)!;
    live = appendLiveStep(live, { step: 2, warmup: false, stepSeconds: 0.4 }, t0 + 1990)!; // a repeat is not a second mark
    live = appendLiveSample(live, event(2000, [95, 20]), t0 + 2030);
    expect(live.record.samples.map((s) => s.t)).toEqual([0, 1000, 2000]);
    expect(live.record.steps).toEqual([
      { step: 1, warmup: true, endT: 1500, seconds: 0.9 },
      { step: 2, warmup: false, endT: 1900, seconds: 0.4 },
    ]);

    // The stored view's option builder draws it: CPU cores at ≥ 90 % per sample, warm-up's end dashed at 1.5 s,
    // no GPU or PCIe series (not zeros), their titles saying why.
    const option = resourceLanesOption(live.record) as unknown as {
      series: { name: string; data: [number, number][]; markLine?: { data: { xAxis: number }[] } }[];
      title: { text: string }[];
    };
    expect(option.series.map((s) => s.name)).toEqual(['cores ≥ 90%']);
    expect(option.series[0].data).toEqual([
      [0, 1],
      [1, 2],
      [2, 1],
    ]);
    expect(option.series[0].markLine?.data[0].xAxis).toBe(1.5);
    expect(option.title[0].text).toBe('GPU busy (%): not available: no NVIDIA GPU on this machine');
    expect(option.title[1].text).toBe('PCIe rx + tx per GPU (GB/s): not available: no NVIDIA GPU on this machine');
  });

  it('cannot place a step before the first sample, and says nothing wrong about it', () => {
    expect(appendLiveStep(null, { step: 1, warmup: true, stepSeconds: 1 }, 5)).toBeNull();
  });

  it('stays bounded on a long run: neighbours merge pairwise, standing for both', () => {
    let live: LiveRecord | null = null;
    for (let i = 0; i <= LIVE_CAPACITY; i++) live = appendLiveSample(live, event(i * 1000, [i % 2 ? 100 : 0]), 1e6 + i * 1000);
    expect(live!.record.samples.length).toBe(Math.ceil((LIVE_CAPACITY + 1) / 2));
    expect(live!.record.samples[0]).toMatchObject({ t: 1000, cpuBusyPct: [50], merged: 2 });
    expect(live!.record.downsampled).toBe(LIVE_CAPACITY + 1 - live!.record.samples.length);
  });
});
