// Live charts of a running sweep (pure; type imports only): TFLOPS/GPU and memory per step,
// one line per run.
import type { EChartsOption } from 'echarts';
import { strategyColor } from './labels';

export interface LiveSeriesInput {
  name: string;
  /** The strategy id: its colour is the one every chart gives it. */
  strategy?: string;
  points: { step: number; warmup: boolean; tflopsPerGpu: number | null; gpuPeakBytes: number | null; hostRssBytes: number | null; stepSeconds: number }[];
}

const GiB = 2 ** 30;

/** Room for a plain (wrapping, never paging) legend of these names above a ~520 px chart. */
export function legendTop(names: string[]): number {
  let rows = 1;
  let x = 0;
  for (const n of names) {
    const w = 32 + n.length * 7;
    if (x > 0 && x + w > 500) {
      rows += 1;
      x = 0;
    }
    x += w;
  }
  return 34 + rows * 22;
}

export function liveTflopsOption(runs: LiveSeriesInput[]): EChartsOption {
  return {
    animation: false,
    legend: { top: 0, type: 'plain' },
    grid: { left: 16, right: 20, top: legendTop(runs.map((r) => r.name)), bottom: 36, containLabel: true },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 22, minInterval: 1, min: 'dataMin', max: 'dataMax' },
    yAxis: { type: 'value', name: 'TFLOPS / GPU', nameGap: 12 },
    series: runs.map((r) => ({
      type: 'line',
      name: r.name,
      showSymbol: true,
      ...(r.strategy ? { itemStyle: { color: strategyColor(r.strategy) } } : {}),
      data: r.points.map((p) => ({ value: [p.step, p.tflopsPerGpu], symbol: p.warmup ? 'emptyCircle' : 'circle' })),
    })),
  };
}

export function liveMemoryOption(runs: LiveSeriesInput[]): EChartsOption {
  return {
    animation: false,
    legend: { top: 0, type: 'plain' },
    grid: { left: 16, right: 20, top: legendTop(runs.flatMap((r) => [`${r.name} · GPU peak`, `${r.name} · host RSS`])), bottom: 36, containLabel: true },
    tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => `${Number(v).toFixed(2)} GiB` },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 22, minInterval: 1, min: 'dataMin', max: 'dataMax' },
    yAxis: { type: 'value', name: 'GiB', nameGap: 12 },
    series: runs.flatMap((r) => [
      { type: 'line' as const, name: `${r.name} · GPU peak`, ...(r.strategy ? { itemStyle: { color: strategyColor(r.strategy) } } : {}), data: r.points.filter((p) => p.gpuPeakBytes !== null).map((p) => [p.step, (p.gpuPeakBytes ?? 0) / GiB]) },
      { type: 'line' as const, name: `${r.name} · host RSS`, ...(r.strategy ? { itemStyle: { color: strategyColor(r.strategy) } } : {}), lineStyle: { type: 'dashed' as const }, data: r.points.filter((p) => p.hostRssBytes !== null).map((p) => [p.step, (p.hostRssBytes ?? 0) / GiB]) },
    ]),
  };
}

/**
 * One stored run's steps: step time (left axis) and TFLOPS per GPU (right axis) over its steps,
 * warm-up steps hollow and grey, in the strategy's colour. The x-axis starts at the first step.
 */
export function runStepsOption(points: LiveSeriesInput['points'], strategy: string, muted = '#5d6672'): EChartsOption {
  const color = strategyColor(strategy);
  const hasTflops = points.some((p) => p.tflopsPerGpu != null);
  return {
    animation: false,
    legend: { top: 0, type: 'plain', textStyle: { color: muted } },
    grid: { left: 16, right: 16, top: 40, bottom: 36, containLabel: true },
    tooltip: { trigger: 'axis', confine: true },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 22, minInterval: 1, min: 'dataMin', max: 'dataMax' },
    yAxis: [
      { type: 'value', name: 'step s', scale: true, nameTextStyle: { align: 'left' } },
      ...(hasTflops ? [{ type: 'value' as const, name: 'TFLOPS/GPU', scale: true, splitLine: { show: false }, nameTextStyle: { align: 'right' as const } }] : []),
    ],
    series: [
      {
        type: 'line',
        name: 'step time (s)',
        itemStyle: { color },
        data: points.map((p) => ({ value: [p.step, p.stepSeconds], symbol: p.warmup ? 'emptyCircle' : 'circle', itemStyle: p.warmup ? { color: muted } : undefined })),
      },
      ...(hasTflops
        ? [{ type: 'line' as const, name: 'TFLOPS/GPU', yAxisIndex: 1, lineStyle: { type: 'dashed' as const }, itemStyle: { color }, data: points.filter((p) => p.tflopsPerGpu != null).map((p) => ({ value: [p.step, p.tflopsPerGpu], symbol: p.warmup ? 'emptyCircle' : 'triangle' })) }]
        : []),
    ],
  } as EChartsOption;
}
