// A new user's first hour, on the pure code every front end shares: small
// measured figures keep three significant digits instead of printing as 0.0, and a CPU smoke run's
// zeros are no prediction — not a bar, not a point at 0 — with the Plan chart giving the Plan
// table's reason ("needs a GPU"), not "does not fit".
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import { predictedOption, predictedTflopsOption } from '../../../electron/contract';
import { limitWords } from '../../../electron/contract/charts/labels';
import { formatFigure, hasPrediction } from '../../../electron/contract/format';
import { fmt, fmtSpread } from '../../../electron/services/reports/format';
import { planWorkload } from '../../../electron/services/tuner';
import { formatNumber } from '../../../renderer/src/format';
import { h200Machine } from '../tuner/h200-machine';

function svg(option: EChartsOption, width = 900, height = 420): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  chart.setOption(option);
  const out = chart.renderToSVGString();
  chart.dispose();
  return out;
}

describe('formatFigure: three significant digits for small figures', () => {
  it('keeps small figures readable and leaves large ones as they were', () => {
    expect(formatFigure(0.0084)).toBe('0.0084');
    expect(formatFigure(0.01234)).toBe('0.0123');
    expect(formatFigure(0.000123456)).toBe('0.000123');
    expect(formatFigure(412.3)).toBe('412.3');
    expect(formatFigure(412.34)).toBe('412.3');
    expect(formatFigure(5)).toBe('5.0');
    expect(formatFigure(1234.5, 0)).toBe('1,235');
    expect(formatFigure(1234.5, 0, false)).toBe('1235');
    expect(formatFigure(0.5, 3)).toBe('0.500');
    expect(formatFigure(0.0123, 3)).toBe('0.0123');
    expect(formatFigure(-0.0084)).toBe('-0.0084');
    expect(formatFigure(0)).toBe('0.0');
    expect(formatFigure(null)).toBe('—');
    expect(formatFigure(Number.NaN)).toBe('—');
  });

  it('is the formatter of the report and the UI', () => {
    expect(fmt(0.0084)).toBe('0.0084');
    expect(fmtSpread({ median: 0.0084, min: 0.0081, max: 0.0091, n: 3 } as never)).toBe('0.0084 (0.0081–0.0091)');
    expect(formatNumber(0.0084)).toBe('0.0084');
    expect(formatNumber(412.3)).toBe('412.3');
  });
});

describe('no prediction is not a prediction of zero', () => {
  const noGpu = planWorkload({ model: 'tiny-llama', seqLen: 128, microBatch: 1, gpus: 1 } as never, {
    machine: { ...h200Machine(), gpus: [] } as never,
  });

  it('marks a CPU smoke run as unpredicted', () => {
    const cpu = noGpu.strategies.filter((s) => s.fits);
    expect(cpu.length).toBeGreaterThan(0);
    for (const s of cpu) expect(hasPrediction(s.spec.prediction ?? s.predicted)).toBe(false);
    expect(hasPrediction({ stepSeconds: 1.2 })).toBe(true);
    expect(hasPrediction(null)).toBe(false);
  });

  it('labels the Plan TFLOPS chart with the Plan table words and draws no bar at 0', () => {
    expect(noGpu.profile.gpuCount).toBe(0);
    const option = predictedTflopsOption(noGpu) as { series: { data: { value: number | null }[] }[] };
    expect(option.series[0].data.every((d) => d.value === null)).toBe(true);
    const text = svg(predictedTflopsOption(noGpu));
    const gpuOnly = noGpu.strategies.find((s) => !s.fits && s.limitedBy === 'gpu-count');
    expect(gpuOnly).toBeDefined();
    expect(limitWords(gpuOnly!.limitedBy, noGpu.profile.gpuCount)).toBe('needs a GPU');
    expect(text).toContain('needs a GPU');
    expect(text).not.toContain('does not fit');
    expect(text).toContain('no prediction (CPU run)');
  });

  it('omits a run with a predicted 0 from the predicted-vs-measured chart', () => {
    const run = (id: string, predicted: number | null, measured: number) => ({
      id,
      label: id,
      strategy: 'zero2-offload',
      predictedTflopsPerGpu: predicted,
      predictedStepSeconds: predicted,
      tflopsPerGpu: measured,
      stepSeconds: 1,
    });
    const c = { runs: [run('cpu', 0, 0.0084), run('gpu', 100, 90)], groups: [], series: [], metrics: [], primary: 'tflopsPerGpu' } as never;
    const option = predictedOption(c) as { series: { data?: { name: string }[] }[] };
    const names = option.series.flatMap((s) => (s.data ?? []).map((d) => d?.name).filter(Boolean));
    expect(names).toContain('gpu');
    expect(names).not.toContain('cpu');
    const onlyCpu = predictedOption({
      runs: [run('cpu', 0, 0.0084)],
      groups: [],
      series: [],
      metrics: [],
      primary: 'tflopsPerGpu',
    } as never) as { series: unknown[] };
    expect(onlyCpu.series).toEqual([]);
  });
});
