// The user view's chart rules, on the pure builders the app and the reports share: one colour per
// strategy, no bar for a strategy that does not fit, each memory resource against its own
// capacity (its own unit), an empty predicted-vs-measured chart without axes, step axes that
// start at the data, and the CPU Adam curve from its first thread count.
import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import {
  cpuAdamCurveOption,
  memoryOption,
  memoryPanelsOption,
  predictedOption,
  predictedTflopsOption,
  STEP_STATISTIC,
  strategyColor,
  strategyLabel,
} from '../../../electron/contract';
import type { EChartsOption } from 'echarts';
import { planWorkload } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from '../tuner/h200-machine';

function svg(option: EChartsOption, width = 640, height = 360): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  chart.setOption(option);
  const out = chart.renderToSVGString();
  chart.dispose();
  return out;
}

describe('one colour and one name per strategy', () => {
  it('gives every catalogued strategy its own stable colour, and unknown ids a stable one', () => {
    const ids = [
      'superoffload',
      'zero2-offload',
      'zero3-offload',
      'zero3-offload-param',
      'zero-infinity-nvme',
      'gpu-zero1',
      'gpu-zero2',
      'gpu-zero3',
      'fsdp2-cpu-offload',
    ];
    const colours = ids.map(strategyColor);
    expect(new Set(colours).size).toBe(ids.length);
    expect(strategyColor('SuperOffload')).toBe(strategyColor('superoffload'));
    expect(strategyColor('my-custom')).toBe(strategyColor('my-custom'));
    expect(strategyLabel('gpu-zero2')).toBe('ZeRO-2');
    expect(STEP_STATISTIC).toBe('median of measured steps');
  });
});

describe('Plan charts', () => {
  const plan = planWorkload({ model: 'llama-3.1-8b', seqLen: 2048, microBatch: 1, gpus: 1 } as never, {
    machine: h200Machine(),
    measurements: h200Measurements(),
  });

  it('draws no bar for a strategy that does not fit and names it instead', () => {
    const option = predictedTflopsOption(plan) as { series: { data: { value: number | null; itemStyle: { color: string } }[] }[] };
    const data = option.series[0].data;
    plan.strategies.forEach((s, i) => {
      if (s.fits) expect(data[i].value).toBeGreaterThan(0);
      else expect(data[i].value).toBeNull();
      expect(data[i].itemStyle.color).toBe(strategyColor(s.id));
    });
    expect(plan.strategies.some((s) => !s.fits)).toBe(true);
    // The category says why, in the Plan table's words (not a generic "does not fit").
    expect(svg(predictedTflopsOption(plan))).toMatch(
      /needs more GPU memory|needs more host memory|needs more GPUs|needs more NVMe space|not available on this machine/,
    );
  });

  it('draws GPU and host memory in their own panels against their own capacity', () => {
    const option = memoryOption(plan) as { grid: unknown[]; xAxis: { name: string }[] };
    expect(option.grid.length).toBeGreaterThanOrEqual(2);
    expect(option.xAxis[0].name).toMatch(/^GPU, GiB\ncapacity \d+/);
    expect(option.xAxis[1].name).toMatch(/^host, [GT]iB\ncapacity \d+/);
  });

  it('gives a panel TiB when its figures reach a TiB, without touching the others', () => {
    const option = memoryPanelsOption(
      [{ label: 'A', color: '#000', gpuBytes: 20 * 2 ** 30, hostBytes: 1.5 * 2 ** 40, nvmeBytes: null }],
      { gpuBytes: 141 * 2 ** 30, hostBytes: 2 * 2 ** 40, nvmeBytes: null },
      { text: '#000', muted: '#666', grid: '#ddd' },
    ) as { xAxis: { name: string }[] };
    expect(option.xAxis.map((a) => a.name.split('\n')[0])).toEqual(['GPU, GiB', 'host, TiB']);
  });

  it('CPU runs (no GPU figure, no GPU capacity) get no GPU panel: only the host’s (issue 49.8)', () => {
    const option = memoryPanelsOption(
      [
        { label: 'ZeRO-Offload', color: '#000', gpuBytes: null, hostBytes: 0.9 * 2 ** 30, nvmeBytes: null },
        { label: 'ZeRO-3 Offload', color: '#111', gpuBytes: null, hostBytes: 1.1 * 2 ** 30, nvmeBytes: null },
      ],
      { gpuBytes: null, hostBytes: 7.8 * 2 ** 30, nvmeBytes: null },
      { text: '#000', muted: '#666', grid: '#ddd' },
    ) as { xAxis: { name: string }[]; grid: unknown[] };
    expect(option.xAxis.map((a) => a.name.split('\n')[0])).toEqual(['host, GiB']);
    expect(option.grid).toHaveLength(1);
  });

  it("the host panel's ticks are evenly spaced up to its end (0 10 20 30, not 0 10 20 25)", () => {
    // this 2-core VM's CPU runs: ~0.8 GiB each against 23.5 GiB of host memory (walk, Compare at 1280)
    const option = memoryPanelsOption(
      [{ label: 'ZeRO-3 Offload', color: '#000', gpuBytes: null, hostBytes: 0.75 * 2 ** 30, nvmeBytes: null }],
      { gpuBytes: null, hostBytes: 23.5 * 2 ** 30, nvmeBytes: null },
      { text: '#000', muted: '#666', grid: '#ddd' },
    );
    for (const width of [480, 900]) {
      const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height: 240 });
      chart.setOption(option);
      const axis = (
        chart as unknown as { getModel(): { getComponent(t: string, i: number): { axis: { scale: { getTicks(): { value: number }[] } } } } }
      )
        .getModel()
        .getComponent('xAxis', 0).axis;
      const ticks = axis.scale.getTicks().map((t) => t.value);
      chart.dispose();
      const steps = new Set(ticks.slice(1).map((v, i) => +(v - ticks[i]).toFixed(6)));
      expect(steps.size, `${width} px: ${ticks.join(' ')}`).toBe(1);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(23.5);
    }
  });

  it("a tiny model's memory keeps its digits in the tooltip (0.00244 GiB, not 0.00)", () => {
    const option = memoryPanelsOption(
      [{ label: 'tiny', color: '#000', gpuBytes: 2.62e6, hostBytes: 0.83 * 2 ** 30, nvmeBytes: null }],
      { gpuBytes: 141 * 2 ** 30, hostBytes: 24 * 2 ** 30, nvmeBytes: null },
      { text: '#000', muted: '#666', grid: '#ddd' },
    ) as { series: { data: { value: number }[]; tooltip: { formatter: (q: { name: string; value: number }) => string } }[] };
    const tip = (i: number) => option.series[i].tooltip.formatter({ name: 'tiny', value: option.series[i].data[0].value });
    expect(tip(0)).toContain('GPU memory (per GPU): 0.00244 GiB of 141 GiB');
    expect(tip(1)).toContain('host memory (per node): 0.83 GiB of 24.0 GiB');
  });
});

describe('empty and edge charts', () => {
  it('says an empty predicted-vs-measured chart is empty, without axes or a diagonal', () => {
    const c = { runs: [], groups: [], series: [], metrics: [], primary: 'tflopsPerGpu' } as never;
    const option = predictedOption(c) as { xAxis?: unknown; series: unknown[]; graphic: { style: { text: string } }[] };
    expect(option.xAxis).toBeUndefined();
    expect(option.series).toEqual([]);
    expect(option.graphic[0].style.text).toMatch(/No run here has both a prediction and a measurement/);
  });

  it('starts the CPU Adam curve one thread before the first measured (not at 0, not on the first point)', () => {
    const option = cpuAdamCurveOption({
      cpuAdam: [
        { threads: 2, paramsPerSecond: 1e9 },
        { threads: 8, paramsPerSecond: 3e9 },
      ],
      recommendedThreads: 8,
    } as never) as { xAxis: { min: number } };
    expect(option.xAxis.min).toBe(1);
  });

  it('marks the recommended threads with a dot and words beside it, not a pin over the axis name (issue 49.8)', () => {
    const option = cpuAdamCurveOption({
      cpuAdam: [
        { threads: 1, paramsPerSecond: 0.9e9 },
        { threads: 2, paramsPerSecond: 1.3e9 },
      ],
      recommendedThreads: 1,
    } as never);
    const text = svg(option);
    expect(text).toContain('1 thread (recommended)');
    expect(text).toContain('G params/s');
    // a pin (echarts' default) rises ~40 px above its point, over the axis name: "1 params/s"
    expect((option as { series: { markPoint: { symbol: string; symbolSize: number } }[] }).series[0].markPoint).toMatchObject({
      symbol: 'circle',
      symbolSize: 10,
    });
  });
});
