// The loss curve of a run: the runner's per-step loss as a line; a NaN/inf step (stored as null) is a
// gap named beside the chart, and a run without any loss value gets no chart, only why — never zeros.
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import { lossCurve, stepRanges } from '../../../electron/contract';

type Series = { name: string; connectNulls?: boolean; data: { value: [number, number | null]; symbol: string }[] };

describe('loss curve', () => {
  it('draws each step at its loss, warm-up hollow, the axis fitted to the values', () => {
    const { option, missing } = lossCurve([
      { step: 1, warmup: true, loss: 10.4 },
      { step: 2, warmup: false, loss: 10.1 },
      { step: 3, warmup: false, loss: 9.8 },
    ]);
    expect(missing).toBeNull();
    const series = (option as { series: Series[] }).series;
    expect(series[0].data.map((d) => d.value)).toEqual([
      [1, 10.4],
      [2, 10.1],
      [3, 9.8],
    ]);
    expect(series[0].data.map((d) => d.symbol)).toEqual(['emptyCircle', 'circle', 'circle']);
    expect((option as { yAxis: { scale: boolean } }).yAxis.scale).toBe(true);
  });

  it('draws the first and last steps inside the plot, not on its edges over the axes', () => {
    const { option } = lossCurve([1, 2, 3, 4, 5, 6].map((step) => ({ step, warmup: step <= 2, loss: 5.55 - step / 1000 })));
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 800, height: 240 });
    chart.setOption(option as EChartsOption);
    const grid = (
      chart as unknown as { getModel(): { getComponent(t: string): { coordinateSystem: { getRect(): { x: number; width: number } } } } }
    )
      .getModel()
      .getComponent('grid')
      .coordinateSystem.getRect();
    const [first] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [1, 5.549]) as number[];
    const [last] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [6, 5.544]) as number[];
    chart.dispose();
    expect(first - grid.x).toBeGreaterThanOrEqual(12);
    expect(grid.x + grid.width - last).toBeGreaterThanOrEqual(12);
  });

  it('leaves a NaN/inf step out as a gap and says which steps, instead of plotting 0', () => {
    const { option, missing } = lossCurve(
      [1, 2, 3, 4, 5].map((step) => ({ step, warmup: false, loss: step >= 3 && step <= 4 ? null : 5 - step / 10 })),
    );
    const series = (option as { series: Series[] }).series;
    expect(series[0].connectNulls).toBe(false);
    expect(series[0].data.map((d) => d.value[1])).toEqual([4.9, 4.8, null, null, 4.5]);
    expect(missing).toBe('steps 3–4: the loss was NaN or infinite (a gap in the line, not 0)');
  });

  it('a run without any loss value has no chart, and says so', () => {
    expect(
      lossCurve([
        { step: 1, warmup: true, loss: null },
        { step: 2, warmup: false, loss: null },
      ]),
    ).toEqual({ option: null, missing: 'no step has a loss value (steps 1–2: NaN/inf, or not reported by the runner)' });
    expect(lossCurve([])).toEqual({ option: null, missing: 'no step has been recorded yet' });
  });

  it('renders in echarts (the parts the app registers: line, grid, tooltip)', () => {
    const { option } = lossCurve([
      { step: 1, warmup: false, loss: 3 },
      { step: 2, warmup: false, loss: null },
    ]);
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 400, height: 200 });
    chart.setOption(option as EChartsOption);
    expect(chart.renderToSVGString()).toContain('<svg');
    chart.dispose();
  });

  it('names steps as ranges', () => expect(stepRanges([9, 4, 5, 6, 1])).toBe('1, 4–6, 9'));
});
