// The shared chart builders drawn the way reports draw them: echarts server-side rendering to SVG.
import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import {
  deltaRows,
  memoryPerResourceOption,
  predictedOption,
  repeatBarsOption,
  stepLinesOption,
  type EChartsOption,
} from './charts-imports';
import { storeWith } from './helpers';

function svg(option: EChartsOption): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 640, height: 360 });
  chart.setOption(option);
  const out = chart.renderToSVGString();
  chart.dispose();
  return out;
}

const comparison = () => {
  const store = storeWith([
    { id: 'z1', strategy: 'zero3-offload', tflops: 100, repeatIndex: 0, predicted: 110 },
    { id: 'z2', strategy: 'zero3-offload', tflops: 110, repeatIndex: 1, predicted: 110 },
    { id: 's1', strategy: 'superoffload', tflops: 150, repeatIndex: 0, predicted: 140 },
  ]);
  const c = store.compare(['z1', 'z2', 's1']);
  store.close();
  return c;
};

describe('compare chart builders', () => {
  it('render to SVG with the medians, the repeat spread and the baseline named', () => {
    const c = comparison();
    const bars = svg(repeatBarsOption(c));
    expect(bars).toContain('(baseline)');
    expect(bars).toContain('ZeRO-3 Offload');
    expect(bars).toContain('higher is better');
    expect(bars).toContain('>105<'); // median of 100 and 110, as the bar label
    // The custom series draws one whisker per group: 3 lines each (cap, stem, cap).
    const option = repeatBarsOption(c) as { series: { type: string; data: unknown[] }[] };
    expect(option.series.find((s) => s.type === 'custom')!.data).toEqual([
      [0, 100, 110],
      [1, 150, 150],
    ]);
    expect(option.series.find((s) => s.type === 'scatter')!.data).toEqual([
      [0, 100],
      [0, 110],
      [1, 150],
    ]);
  });

  it("a bar says its median as the delta table does (12,345 tokens/s, not 12300; a CPU run's 0.00842)", () => {
    const store = storeWith([
      { id: 'a', strategy: 'zero3-offload', tflops: 301.4 }, // 4096 tokens per 100/301.4 s: 12,345.3 tokens/s
      { id: 'b', strategy: 'zero2-offload', tflops: 0.00842 },
    ]);
    const c = store.compare(['a', 'b']);
    store.close();
    const tokens = svg(repeatBarsOption(c, 'tokensPerSecond'));
    expect(tokens).toContain('>12,345<');
    expect(tokens).not.toContain('>12300<');
    expect(svg(repeatBarsOption(c, 'tflopsPerGpu'))).toContain('>0.00842<');
  });

  it('draws step lines per run, memory against capacity, and predicted vs measured with y = x', () => {
    const c = comparison();
    const lines = stepLinesOption(c, 'stepSeconds') as { series: { name: string; data: number[][] }[] };
    // (Runs created in the same millisecond come in id order: compare as a set.)
    expect(lines.series.map((s) => s.name).sort()).toEqual(['SuperOffload', 'ZeRO-3 Offload #1', 'ZeRO-3 Offload #2']);
    expect(lines.series.find((s) => s.name === 'ZeRO-3 Offload #1')!.data.map((p) => p[0])).toEqual([2, 3, 4, 5]);
    const memory = svg(memoryPerResourceOption(c));
    // Each resource in its own panel, named with its own capacity (GiB or TiB per panel).
    expect(memory).toContain('GPU, GiB');
    expect(memory).toContain('capacity 141');
    expect(memory).toMatch(/host, [GT]iB/);
    const predicted = predictedOption(c) as { series: { name: string; data: { name: string; value: number[] }[] }[] };
    const s1 = predicted.series[0].data.find((d) => d.name === 'SuperOffload')!;
    expect(s1.value[0]).toBe(140);
    expect(s1.value[1]).toBe(150);
    expect(s1.value[2]).toBeCloseTo((10 / 140) * 100, 10);
    expect(svg(predictedOption(c))).toContain('Predicted vs measured TFLOPS/GPU');
  });

  it('gives delta rows whose "better" follows each metric\'s direction', () => {
    const c = comparison();
    const tflops = deltaRows(c, 'tflopsPerGpu');
    expect(tflops.map((r) => [r.label, r.isBaseline, r.better])).toEqual([
      ['ZeRO-3 Offload', true, null],
      ['SuperOffload', false, true],
    ]);
    const step = deltaRows(c, 'stepSeconds');
    expect(step[1].deltaPct!).toBeLessThan(0);
    expect(step[1].better).toBe(true); // a shorter step is better
  });
});
