// The report's charts as ECharts options: TFLOPS per GPU by strategy (median bar, one dot per
// repeat), step time over measured steps, memory peaks. Pure data → options.
import { strategyColor } from '../../contract/charts/labels';
import { memoryPanelsOption } from '../../contract/charts/memory-panels';
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
      // Each strategy in its one colour (the same as in the app's charts).
      { type: 'bar', name: 'median', data: groups.map((g) => ({ value: g.tflopsPerGpu ? r2(g.tflopsPerGpu.median) : null, itemStyle: { color: strategyColor(g.strategy) } })), label: { show: true, position: 'top' } },
      { type: 'scatter', name: 'repeats', data: repeats, symbolSize: 7, itemStyle: { color: '#1b1f24', opacity: 0.75 } },
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
      itemStyle: { color: strategyColor(r.summary.strategy) },
      data: r.samples.filter((s) => !s.warmup).map((s, i) => [i + 1, r2(s.stepSeconds)]),
    })),
  };
}

/** Peaks per resource, each in its own panel (GPU per GPU, host per node), bars in strategy colours. */
export function memoryChart(groups: ReportGroup[]): Record<string, unknown> {
  const peak = (g: ReportGroup, k: 'peakGpuBytes' | 'peakHostBytes') => {
    const xs = g.runs.map((r) => r.figures[k]).filter((v): v is number => v != null);
    return xs.length ? xs.reduce((a, b) => (b > a ? b : a), -Infinity) : null; // no spread: any number of runs
  };
  const rows = groups.map((g) => ({ label: groupLabel(g, groups), color: strategyColor(g.strategy), gpuBytes: peak(g, 'peakGpuBytes'), hostBytes: peak(g, 'peakHostBytes'), nvmeBytes: null }));
  return { textStyle: FONT, ...memoryPanelsOption(rows, { gpuBytes: null, hostBytes: null, nvmeBytes: null }, { text: '#1b1f24', muted: '#5d6672', grid: '#d9dee5' }, { top: 16 }) } as Record<string, unknown>;
}
