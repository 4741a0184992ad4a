// The report's charts as ECharts options: TFLOPS per GPU by strategy (median bar, one dot per
// repeat), step time over measured steps, memory peaks. Pure data → options.
import { strategyName } from './format';
import type { ReportGroup, ReportRun } from './types';

const FONT = { fontFamily: 'Helvetica, Arial, sans-serif', fontSize: 12 };
const GiB = 2 ** 30;
const r2 = (x: number) => Math.round(x * 100) / 100;

function groupLabel(g: ReportGroup, groups: ReportGroup[]): string {
  const models = new Set(groups.map((x) => x.model));
  return models.size > 1 ? `${strategyName(g.strategy)} · ${g.model}` : strategyName(g.strategy);
}

export function tflopsChart(groups: ReportGroup[]): Record<string, unknown> {
  const labels = groups.map((g) => groupLabel(g, groups));
  const repeats = groups.flatMap((g, i) => g.runs.map((r) => r.figures.tflopsPerGpu?.median).filter((v): v is number => v != null).map((v) => [i, r2(v)]));
  return {
    textStyle: FONT,
    grid: { left: 60, right: 20, top: 30, bottom: 70 },
    xAxis: { type: 'category', data: labels, axisLabel: { interval: 0, rotate: labels.length > 4 ? 25 : 0 } },
    yAxis: { type: 'value', name: 'TFLOPS per GPU (median)' },
    series: [
      { type: 'bar', name: 'median', data: groups.map((g) => (g.tflopsPerGpu ? r2(g.tflopsPerGpu.median) : null)), itemStyle: { color: '#2563eb' }, label: { show: true, position: 'top' } },
      { type: 'scatter', name: 'repeats', data: repeats, symbolSize: 7, itemStyle: { color: '#f59e0b' } },
    ],
  };
}

export function stepTimeChart(runs: ReportRun[]): Record<string, unknown> {
  const shown = runs.filter((r) => r.samples.some((s) => !s.warmup));
  return {
    textStyle: FONT,
    grid: { left: 60, right: 20, top: shown.length <= 12 ? 50 : 20, bottom: 40 },
    legend: shown.length <= 12 ? { top: 0, type: 'plain' } : undefined,
    xAxis: { type: 'value', name: 'measured step', nameLocation: 'middle', nameGap: 25, minInterval: 1 },
    yAxis: { type: 'value', name: 'step time (s)' },
    series: shown.map((r) => ({
      type: 'line',
      name: r.label,
      showSymbol: false,
      data: r.samples.filter((s) => !s.warmup).map((s, i) => [i + 1, r2(s.stepSeconds)]),
    })),
  };
}

export function memoryChart(groups: ReportGroup[]): Record<string, unknown> {
  const peak = (g: ReportGroup, k: 'peakGpuBytes' | 'peakHostBytes') => {
    const xs = g.runs.map((r) => r.figures[k]).filter((v): v is number => v != null);
    return xs.length ? r2(Math.max(...xs) / GiB) : null;
  };
  const labels = groups.map((g) => groupLabel(g, groups));
  return {
    textStyle: FONT,
    grid: { left: 60, right: 20, top: 40, bottom: 70 },
    legend: { top: 0 },
    xAxis: { type: 'category', data: labels, axisLabel: { interval: 0, rotate: labels.length > 4 ? 25 : 0 } },
    yAxis: { type: 'value', name: 'GiB (peak)' },
    series: [
      { type: 'bar', name: 'GPU peak', data: groups.map((g) => peak(g, 'peakGpuBytes')), itemStyle: { color: '#15803d' } },
      { type: 'bar', name: 'host peak', data: groups.map((g) => peak(g, 'peakHostBytes')), itemStyle: { color: '#b45309' } },
    ],
  };
}
