// The run page's per-step chart: the measured steps set both axes' scale; warm-up steps are their
// own grey "warm-up" series, and one off the scale sits on the edge as an arrow with its value.
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import { niceBounds, runStepsOption, warmupOffScale } from '../../../electron/contract';

// The H200 sample's shape: a ~11 s first warm-up step, measured steps near 2.3 s.
const points = [
  { step: 1, warmup: true, stepSeconds: 11.2, tflopsPerGpu: 21.5 },
  { step: 2, warmup: true, stepSeconds: 2.4, tflopsPerGpu: 100.2 },
  ...[2.31, 2.29, 2.34, 2.3, 2.28, 2.33].map((s, i) => ({ step: 3 + i, warmup: false, stepSeconds: s, tflopsPerGpu: 230 / s })),
].map((p) => ({ ...p, gpuPeakBytes: null, hostRssBytes: null }));

type Series = {
  name: string;
  yAxisIndex?: number;
  data: { value: number[]; actual?: number; symbol?: string; symbolRotate?: number; label?: { formatter?: string } }[];
};

describe('run page per-step chart', () => {
  const option = runStepsOption(points, 'superoffload') as unknown as {
    yAxis: { min: number; max: number; interval: number }[];
    series: Series[];
  };

  it('scales the step-time axis to the measured steps, not the warm-up step', () => {
    const [step, tflops] = option.yAxis;
    expect(step.min).toBeLessThanOrEqual(2.28);
    expect(step.max).toBeGreaterThanOrEqual(2.34);
    expect(step.max).toBeLessThan(2.6); // the 11.2 s warm-up does not set it
    expect(tflops.min).toBeLessThanOrEqual(230 / 2.34);
    expect(tflops.max).toBeGreaterThanOrEqual(230 / 2.28);
    expect(tflops.min).toBeGreaterThan(50); // nor the warm-up's 21.5 TFLOPS
  });

  it('draws warm-up as its own series, the off-scale one as an arrow on the edge with its value', () => {
    const names = option.series.map((s) => s.name);
    expect(names).toEqual(['step time (s)', 'TFLOPS/GPU', 'warm-up', 'warm-up']);
    expect(option.series[0].data.map((d) => d.value[0])).toEqual([3, 4, 5, 6, 7, 8]); // measured only
    const warmStep = option.series[2].data;
    expect(warmStep[0]).toMatchObject({ value: [1, option.yAxis[0].max], actual: 11.2, symbol: 'arrow', symbolRotate: 0 });
    expect(warmStep[0].label?.formatter).toBe('warm-up 11.2 s ↑');
    const warmTflops = option.series[3].data;
    expect(warmTflops[0]).toMatchObject({ value: [1, option.yAxis[1].min], actual: 21.5, symbol: 'arrow', symbolRotate: 180 });
    expect(warmupOffScale(points)).toEqual(['step 1: 11.2 s, 21.5 TFLOPS/GPU']); // step 2 lies within the scale
    expect(option.series[2].data[1]).toMatchObject({ value: [2, 2.4], symbol: 'emptyCircle' });
    expect(option.series[3].data[1]).toMatchObject({ value: [2, 100.2], symbol: 'emptyTriangle' }); // TFLOPS warm-up: its own shape
  });

  it('names only the warm-up figures off the scale: a TFLOPS point drawn where it lies is not in the note', () => {
    // this CPU VM's run: warm-up steps of 1.33 s over measured 0.2–0.6 s, their TFLOPS inside the TFLOPS scale
    const cpu = [
      { step: 1, warmup: true, stepSeconds: 0.74, tflopsPerGpu: 0.0016 },
      { step: 2, warmup: true, stepSeconds: 1.33, tflopsPerGpu: 0.0009 },
      ...[0.62, 0.36, 0.38, 0.22, 0.07].map((s, i) => ({ step: 3 + i, warmup: false, stepSeconds: s, tflopsPerGpu: 0.0012 / s })),
    ].map((p) => ({ ...p, gpuPeakBytes: null, hostRssBytes: null }));
    expect(warmupOffScale(cpu)).toEqual(['step 2: 1.33 s']);
  });

  it('renders (echarts SSR) with a "warm-up" legend entry', () => {
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 800, height: 300 });
    chart.setOption(option as unknown as EChartsOption);
    const svg = chart.renderToSVGString();
    chart.dispose();
    expect(svg).toContain('warm-up');
  });

  it('draws the first (warm-up) step inside the plot, not on its left edge over the axis', () => {
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 800, height: 300 });
    chart.setOption(option as unknown as EChartsOption);
    // the plot's edges; the warm-up TFLOPS arrow once sat on the left one, in the corner over the axis
    const grid = (
      chart as unknown as { getModel(): { getComponent(t: string): { coordinateSystem: { getRect(): { x: number; width: number } } } } }
    )
      .getModel()
      .getComponent('grid')
      .coordinateSystem.getRect();
    const [first] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 1 }, [1, option.yAxis[1].min]) as number[];
    const [last] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [8, 2.3]) as number[];
    const [edge, end] = [grid.x, grid.x + grid.width];
    const svg = chart.renderToSVGString();
    chart.dispose();
    expect(first - edge).toBeGreaterThanOrEqual(12);
    expect(end - last).toBeGreaterThanOrEqual(12);
    // the axis still says whole steps only
    const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels, labels.join('|')).toEqual(expect.arrayContaining(['2', '8']));
    expect(labels.filter((l) => /^\d+\.5$/.test(l))).toEqual([]);
  });

  it('rounds axis bounds to a readable grid', () => {
    expect(niceBounds(2.28, 2.34)).toEqual({ min: 2.2, max: 2.4, interval: 0.1 }); // 1 % noise does not fill the chart
    expect(niceBounds(0, 0).min).toBe(0);
    const b = niceBounds(98, 101);
    expect(b.min).toBeLessThanOrEqual(98);
    expect(b.max).toBeGreaterThanOrEqual(101);
  });
});
