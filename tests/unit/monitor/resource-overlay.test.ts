// Compare's overlay of two runs' lanes: GPU busy and PCIe of A and B on one time axis, each from the
// start of its own first measured step; a lane a run did not measure is named, not drawn as zeros.
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import { overlayOrigin, resourceOverlayOption, type ResourceRecord } from '../../../electron/contract';

const on = { available: true, reason: null };
const off = (reason: string) => ({ available: false, reason });
const gpuRun = (startupMs: number, util: number, pcieMBps: number): ResourceRecord => ({
  startedAt: '2026-12-05T08:00:00.000Z',
  intervalMs: 500,
  availability: { gpu: on, pcie: on, nvlink: off('NVLink counters are not sampled by this version'), cpu: on, memory: on, disk: on },
  // one sample every 500 ms for 6 s after start-up; warm-up step then two measured 1-s steps
  samples: Array.from({ length: 12 + startupMs / 500 }, (_, i) => ({
    t: (i + 1) * 500,
    gpus: [{ index: 0, utilPct: util, memUsedMiB: 1000, powerW: 300, smClockMHz: 1980, pcieRxMBps: pcieMBps, pcieTxMBps: pcieMBps / 2 }],
    cpuBusyPct: [10],
    memUsedBytes: 1,
    memTotalBytes: 2,
    swapUsedBytes: 0,
    diskReadBps: 0,
    diskWriteBps: 0,
  })),
  steps: [
    { step: 1, warmup: true, endT: startupMs + 3000, seconds: 3 },
    { step: 2, warmup: false, endT: startupMs + 4000, seconds: 1 },
    { step: 3, warmup: false, endT: startupMs + 5000, seconds: 1 },
  ],
  dropped: 0,
  downsampled: 0,
});
const cpuRun: ResourceRecord = {
  ...gpuRun(0, 0, 0),
  availability: { ...gpuRun(0, 0, 0).availability, gpu: off('no NVIDIA GPU on this machine'), pcie: off('no NVIDIA GPU on this machine') },
  samples: gpuRun(0, 0, 0).samples.map((s) => ({ ...s, gpus: [] })),
};

type Opt = {
  series: { name: string; xAxisIndex: number; data: [number, number | null][]; lineStyle: { type: string } }[];
  title: { text: string }[];
};

describe('resource overlay of two runs', () => {
  it("puts both runs on one axis from each one's first measured step, whatever their start-up took", () => {
    // measured steps 2 (ends 6 s) and 3 (ends 7 s): from 5 s to the first sample at or after 7 s
    expect(overlayOrigin(gpuRun(2000, 50, 1000))).toEqual({ t0: 5000, t1: 7000, from: 'first measured step' });
    const o = resourceOverlayOption(
      { label: 'ZeRO-3 Offload', record: gpuRun(2000, 50, 20000) },
      { label: 'ZeRO-1', record: gpuRun(0, 99, 0) },
    ) as unknown as Opt;
    expect(o.series.map((s) => s.name)).toEqual([
      'A · GPU 0',
      'A · PCIe 0',
      'A · cores ≥ 90%',
      'B · GPU 0',
      'B · PCIe 0',
      'B · cores ≥ 90%',
    ]);
    const a = o.series[0].data;
    const b = o.series[3].data;
    // A started 2 s later; on the overlay both begin just after 0, a sample every 0.5 s.
    expect(a[0]).toEqual([0.5, 50]);
    expect(b[0]).toEqual([0.5, 99]);
    // Only the measured steps: 4 samples of 0.5 s each, the teardown after them left out.
    expect(a.map(([x]) => x)).toEqual([0.5, 1, 1.5, 2]);
    expect(b.map(([x]) => x)).toEqual([0.5, 1, 1.5, 2]);
    expect(o.series[1].data[0]).toEqual([0.5, 30]); // rx 20 + tx 10 GB/s
    expect(o.series[3].lineStyle.type).toBe('dashed');
    expect(o.series[2].data[0]).toEqual([0.5, 0]); // CPU cores at ≥ 90%: a real 0, the lane was measured
    expect(o.title[0].text).toBe('A (solid): ZeRO-3 Offload   B (dashed): ZeRO-1');
  });

  it('a lane a run did not measure has no series, and the lane says why', () => {
    const o = resourceOverlayOption(
      { label: 'CPU run', record: cpuRun },
      { label: 'gone', record: null, missing: 'no resource samples were stored with this run' },
    ) as unknown as Opt;
    expect(o.series.map((s) => s.name)).toEqual(['A · cores ≥ 90%']); // only the lane A measured
    expect(o.title[1].text).toBe(
      'GPU busy (%) — A: not available: no NVIDIA GPU on this machine — B: not available: no resource samples were stored with this run',
    );
    expect(o.title[2].text).toBe(
      'PCIe rx + tx per GPU (GB/s) — A: not available: no NVIDIA GPU on this machine — B: not available: no resource samples were stored with this run',
    );
    expect(o.title[3].text).toBe('CPU cores at ≥ 90% — B: not available: no resource samples were stored with this run');
  });

  it('a run without a measured step is drawn from the start of sampling, and says so', () => {
    const rec = { ...gpuRun(0, 40, 0), steps: [] };
    expect(overlayOrigin(rec)).toEqual({ t0: 0, t1: Infinity, from: 'start of sampling' });
    const o = resourceOverlayOption({ label: 'x', record: gpuRun(0, 1, 0) }, { label: 'y', record: rec }) as unknown as Opt;
    expect(o.title[1].text).toContain('B: no measured step, from the start of sampling');
  });

  it('a run whose measured steps no sample fell inside (shorter than the interval, over before the next) says so, no series', () => {
    const rec = { ...gpuRun(0, 40, 0), samples: gpuRun(0, 40, 0).samples.filter((s) => s.t <= 3000) };
    const o = resourceOverlayOption({ label: 'x', record: gpuRun(0, 1, 0) }, { label: 'y', record: rec }) as unknown as Opt;
    expect(o.series.map((s) => s.name)).toEqual(['A · GPU 0', 'A · PCIe 0', 'A · cores ≥ 90%']);
    expect(o.title[1].text).toBe('GPU busy (%) — B: no sample inside its measured steps (2.00 s; one every 0.5 s)');
  });

  it('renders in echarts', () => {
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 800, height: 320 });
    chart.setOption(resourceOverlayOption({ label: 'a', record: gpuRun(0, 50, 1000) }, { label: 'b', record: cpuRun }) as EChartsOption);
    expect(chart.renderToSVGString()).toContain('B: not available: no NVIDIA GPU on this machine');
    chart.dispose();
  });
});
