// echarts options for a comparison: built once here, drawn live by the Compare page and rendered
// to SVG by the HTML report (echarts SSR). Pure functions of a Comparison; type imports only.
// Animation is off: a benchmark chart should show the numbers, and SSR has no frames anyway.
import type { EChartsOption } from 'echarts';
import type { Comparison, MetricId } from '../compare';
import { formatCompact, formatDelta } from '../format';
import { escapeHtml } from './escape';
import { METRIC_SHORT, strategyColor } from './labels';
import { memoryPanelsOption } from './memory-panels';

export interface ChartTheme {
  text: string;
  muted: string;
  grid: string;
  palette: string[];
}

export const LIGHT_THEME: ChartTheme = {
  text: '#1b1f24',
  muted: '#5d6672',
  grid: '#d9dee5',
  palette: ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'],
};
export const DARK_THEME: ChartTheme = {
  text: '#e6e9ee',
  muted: '#9aa4b1',
  grid: '#2a313a',
  palette: ['#60a5fa', '#f87171', '#4ade80', '#fbbf24', '#a78bfa', '#22d3ee', '#f472b6', '#9ca3af'],
};

const GIB = 2 ** 30;

function base(theme: ChartTheme, title: string, subtitle?: string): EChartsOption {
  return {
    animation: false,
    color: theme.palette,
    textStyle: { color: theme.text },
    title: {
      text: title,
      subtext: subtitle,
      left: 0,
      textStyle: { fontSize: 13, color: theme.text },
      subtextStyle: { color: theme.muted },
    },
    grid: { left: 56, right: 24, top: 64, bottom: 48, containLabel: true },
    tooltip: { trigger: 'item', confine: true },
  };
}

// Axis names sit centred along the axis (not at its end, where a narrow chart clips them).
const axis = (theme: ChartTheme, nameGap = 28) => ({
  axisLine: { lineStyle: { color: theme.grid } },
  axisLabel: { color: theme.muted },
  splitLine: { lineStyle: { color: theme.grid } },
  nameTextStyle: { color: theme.muted },
  nameLocation: 'middle' as const,
  nameGap,
});
const Y_GAP = 52;

/** The narrowest plot a bar chart gets: the report's 860 px SVG less its axes (the Compare page gives
 *  more than five groups the card's whole width, wider still). */
const MIN_PLOT_WIDTH = 740;
/** Up to this many categories a label wraps inside its share of the width; more are slanted. */
const UPRIGHT_CATEGORIES = 10;

/**
 * Every category named, wrapped to fit its share of the width. A fixed 64 px per label overlapped
 * its neighbours at nine groups (each got ~52 px); the width now follows the count, and past ten
 * groups the labels are slanted instead, where a label has room along its slant.
 */
function categoryLabel(theme: ChartTheme, n: number) {
  const base = { color: theme.muted, interval: 0, lineHeight: 14 };
  if (n > UPRIGHT_CATEGORIES) return { ...base, rotate: 35, overflow: 'truncate' as const, width: 240 };
  return { ...base, overflow: 'break' as const, width: n <= 3 ? 150 : n <= 5 ? 84 : Math.floor(MIN_PLOT_WIDTH / n) - 6 };
}

/** A round axis maximum at or above `v`: 277 → 300, 1.23 → 1.3. */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 1;
  const step = 10 ** (Math.floor(Math.log10(v)) - 1) * 5;
  return Math.ceil(v / step) * step;
}

// Chart data rounded to keep the rendered SVG small; labels and tooltips say figures through formatCompact.
const round = (x: number, digits = 3) => Number(x.toPrecision(digits));

/**
 * Median per group as a bar, the min–max spread of its repeats as an error bar (a custom
 * series), and every raw repeat as a dot: the spread and the raw values stay visible.
 */
export function repeatBarsOption(c: Comparison, metricId: MetricId = c.primary, theme: ChartTheme = LIGHT_THEME): EChartsOption {
  const metric = c.metrics.find((m) => m.id === metricId)!;
  const bytes = metric.unit === 'bytes';
  const scale = (x: number) => (bytes ? x / GIB : x);
  const unit = bytes ? 'GiB' : metric.unit;
  const categories = c.groups.map((g) => (g.isBaseline ? `${g.label}\n(baseline)` : g.label));
  // Each bar in its strategy's colour (the same in every chart and report); no figure, no bar.
  const medians = c.groups.map((g) => ({
    value: g.stats[metricId] ? round(scale(g.stats[metricId]!.median), 4) : null,
    itemStyle: { color: strategyColor(g.strategy) },
  }));
  // The bar's label is the median itself (the bar's value is rounded to 4 digits: 12,345 would read 12,350).
  const exactMedian = (i: number | undefined) =>
    i === undefined || !c.groups[i]?.stats[metricId] ? null : scale(c.groups[i].stats[metricId]!.median);
  const spread = c.groups.flatMap((g, i) => (g.stats[metricId] ? [[i, scale(g.stats[metricId]!.min), scale(g.stats[metricId]!.max)]] : []));
  const raw = c.groups.flatMap((g, i) => (g.stats[metricId]?.values ?? []).map((v) => [i, scale(v)]));
  return {
    ...base(
      theme,
      `${metric.label} (${unit}) — ${metric.better} is better`,
      'bar: median of repeats · whisker: min–max · dots: each repeat',
    ),
    xAxis: { type: 'category', data: categories, ...axis(theme), axisLabel: categoryLabel(theme, categories.length) },
    yAxis: { type: 'value', name: unit, ...axis(theme, Y_GAP) },
    series: [
      {
        name: 'median',
        type: 'bar',
        data: medians,
        barMaxWidth: 64,
        label: {
          show: true,
          position: 'insideBottom',
          color: '#fff',
          formatter: (p: { dataIndex?: number; value?: unknown }) =>
            typeof p.value === 'number' ? formatCompact(exactMedian(p.dataIndex)) : '',
        },
      },
      {
        name: 'min–max',
        type: 'custom',
        data: spread,
        z: 10,
        tooltip: {
          formatter: (p: { value?: unknown }) => {
            const v = p.value as number[];
            return `min ${formatCompact(v[1])} · max ${formatCompact(v[2])} ${escapeHtml(unit)}`;
          },
        },
        renderItem: (_params: unknown, api: { value(i: number): number; coord(p: number[]): number[]; size(p: number[]): number[] }) => {
          const x = api.value(0);
          const low = api.coord([x, api.value(1)]);
          const high = api.coord([x, api.value(2)]);
          const half = Math.max(4, api.size([1, 0])[0] * 0.08);
          const style = { stroke: theme.text, lineWidth: 1.5 };
          return {
            type: 'group',
            children: [
              { type: 'line', shape: { x1: high[0] - half, y1: high[1], x2: high[0] + half, y2: high[1] }, style },
              { type: 'line', shape: { x1: high[0], y1: high[1], x2: low[0], y2: low[1] }, style },
              { type: 'line', shape: { x1: low[0] - half, y1: low[1], x2: low[0] + half, y2: low[1] }, style },
            ],
          };
        },
      },
      { name: 'repeat', type: 'scatter', data: raw, symbolSize: 7, z: 11, itemStyle: { color: theme.text, opacity: 0.75 } },
    ],
  } as EChartsOption;
}

const groupOf = (c: Comparison, runId: string) => c.groups.findIndex((g) => g.runIds.includes(runId));
const repeatOf = (c: Comparison, runId: string) => c.groups[groupOf(c, runId)]?.runIds.indexOf(runId) ?? 0;

// A wrapped legend row is the item's height plus the gap echarts puts between rows (itemGap serves
// both directions): 14 + 12. At 22 a ten-row legend crept over the x-axis name.
const LEGEND_GAP = 12;
const LEGEND_ROW = 14 + LEGEND_GAP;

/** Rows the step charts' legend wraps to at a chart `width` (an estimate): the page adds that height. */
export function legendRows(c: Comparison, width = 520): number {
  const widths = c.series.map((s) => 32 + s.label.length * 7);
  let rows = 1;
  let x = 0;
  for (const w of widths) {
    if (x > 0 && x + w > width - 20) {
      rows += 1;
      x = 0;
    }
    x += w;
  }
  return c.series.length ? rows : 0;
}

/** The step chart's height: its plot (`plot` px) plus the rows its legend wraps to at `width` — the grid
 *  stepLinesOption lays out leaves exactly that room. No comparison yet: room for one row. */
export function stepLinesHeight(c: Comparison | null, width = 520, plot = 260): number {
  return plot + (c ? legendRows(c, width) : 1) * LEGEND_ROW;
}

/** One line per run over its measured steps: step time or TFLOPS per GPU; `width` is the chart's, for the legend's rows. */
export function stepLinesOption(
  c: Comparison,
  which: 'stepSeconds' | 'tflopsPerGpu',
  theme: ChartTheme = LIGHT_THEME,
  width = 520,
): EChartsOption {
  const isTime = which === 'stepSeconds';
  const rows = legendRows(c, width);
  return {
    ...base(
      theme,
      isTime ? 'Step time over measured steps (s) — lower is better' : 'Model TFLOPS per GPU over measured steps — higher is better',
    ),
    tooltip: { trigger: 'axis', confine: true },
    // A plain legend wraps onto more rows (never pages "1/4"); the grid leaves it room.
    legend: { type: 'plain', bottom: 0, left: 0, right: 0, itemGap: LEGEND_GAP, textStyle: { color: theme.muted } },
    grid: { left: 56, right: 24, top: 56, bottom: 36 + rows * LEGEND_ROW, containLabel: true },
    // The axis starts where the measured steps start (warm-up steps are not drawn).
    xAxis: { type: 'value', name: 'step', minInterval: 1, min: 'dataMin', max: 'dataMax', ...axis(theme) },
    yAxis: { type: 'value', name: isTime ? 's' : 'TFLOPS', scale: true, ...axis(theme, Y_GAP) },
    // One colour per strategy (the same everywhere), a dashed line for each further repeat.
    series: c.series.map((s) => ({
      name: s.label,
      type: 'line',
      showSymbol: s.steps.length <= 50,
      sampling: 'lttb',
      itemStyle: { color: strategyColor(c.groups[groupOf(c, s.runId)]?.strategy ?? s.label) },
      lineStyle: { type: repeatOf(c, s.runId) > 0 ? 'dashed' : 'solid', width: 1.5 },
      data: s.steps.map((step, i) => [step, (isTime ? s.stepSeconds : s.tflopsPerGpu)[i]]),
    })),
  } as EChartsOption;
}

/** Peak memory (median of repeats), each resource in its own panel against the capacity of the machine the runs ran on (not the app's host). */
/** Whose capacity the dashed line is, short enough for a 466 px chart at 1280×800: the runs' machine
 *  by name where the name is short, else in words — never "this machine", which a VM reading an H200's
 *  runs is not. */
export function capacityOwner(machine: string | null | undefined): string {
  return machine && machine.length <= 24 ? machine : "the runs' machine";
}

export function memoryPerResourceOption(c: Comparison, theme: ChartTheme = LIGHT_THEME): EChartsOption {
  const rows = c.groups.map((g) => ({
    label: g.label,
    color: strategyColor(g.strategy),
    gpuBytes: g.stats.peakGpuBytes?.median ?? null,
    hostBytes: g.stats.peakHostBytes?.median ?? null,
    nvmeBytes: g.stats.peakNvmeBytes?.median ?? null,
  }));
  return memoryPanelsOption(rows, c.capacity, theme, {
    top: 56,
    title: {
      text: 'Peak memory per resource — lower is better',
      subtext: `median of repeats; dashed line: capacity of ${capacityOwner(c.capacity.machine)}`,
      left: 0,
      textStyle: { fontSize: 13, color: theme.text },
      subtextStyle: { color: theme.muted },
    },
  });
}

/** Predicted vs measured per run, with the y = x line: distance from the line is the tuner's error. */
export function predictedOption(c: Comparison, theme: ChartTheme = LIGHT_THEME): EChartsOption {
  // A prediction of 0 is no prediction (a CPU smoke run's plan): that run has no point, not one at x = 0.
  const predicted = (v: number | null | undefined): v is number => v != null && Number.isFinite(v) && v > 0;
  const useTflops = c.runs.some((r) => predicted(r.predictedTflopsPerGpu) && r.tflopsPerGpu != null);
  const points = c.runs.flatMap((r) => {
    const p = useTflops ? r.predictedTflopsPerGpu : r.predictedStepSeconds;
    const m = useTflops ? r.tflopsPerGpu : r.stepSeconds;
    return predicted(p) && m != null
      ? [{ name: r.label, value: [p, m, ((m - p) / p) * 100], itemStyle: { color: strategyColor(r.strategy) } }]
      : [];
  });
  const unitName = useTflops ? 'TFLOPS/GPU' : 'step s';
  // Nothing to plot: say so, without axes or a diagonal that suggest data.
  if (!points.length)
    return {
      ...base(theme, `Predicted vs measured ${unitName}`),
      graphic: [
        {
          type: 'text',
          left: 'center',
          top: 'middle',
          style: { text: 'No run here has both a prediction and a measurement.', fill: theme.muted, fontSize: 13 },
        },
      ],
      series: [],
    } as EChartsOption;
  // With nothing to plot, a plain 0–100 frame (and the subtitle says why), not a 1e-9 axis.
  const max = points.length ? Math.max(...points.flatMap((p) => [p.value[0], p.value[1]])) * 1.1 : 100;
  const unit = useTflops ? 'TFLOPS/GPU' : 'step s';
  return {
    ...base(
      theme,
      `Predicted vs measured ${unit}`,
      points.length ? 'on the line: the tuner was exact; tooltip: its error' : 'no run with both a prediction and a measurement',
    ),
    xAxis: { type: 'value', name: `predicted ${unit}`, min: 0, max: niceCeil(max), ...axis(theme) },
    yAxis: { type: 'value', name: `measured ${unit}`, min: 0, max: niceCeil(max), ...axis(theme, Y_GAP) },
    series: [
      {
        name: 'runs',
        type: 'scatter',
        symbolSize: 10,
        data: points,
        tooltip: {
          formatter: (p: { name?: string; value?: unknown }) => {
            const v = p.value as number[];
            return `${escapeHtml(p.name)}<br/>predicted ${formatCompact(v[0])} · measured ${formatCompact(v[1])} ${unit}<br/>error ${escapeHtml(formatDelta(v[2]))}`;
          },
        },
      },
      {
        name: 'y = x',
        type: 'line',
        silent: true,
        showSymbol: false,
        lineStyle: { type: 'dashed', color: theme.muted },
        data: [
          [0, 0],
          [niceCeil(max), niceCeil(max)],
        ],
      },
    ],
  } as EChartsOption;
}

/** Rows of the delta table beside the bars: one per group, the primary metric's median and % vs baseline. */
export function deltaRows(c: Comparison, metricId: MetricId = c.primary) {
  const metric = c.metrics.find((m) => m.id === metricId)!;
  return c.groups.map((g) => {
    const s = g.stats[metricId];
    const delta = g.deltaPct[metricId];
    // "better" follows the metric's direction: +5 % step time is worse, +5 % TFLOPS is better.
    const better = delta == null || g.isBaseline ? null : metric.better === 'higher' ? delta > 0 : delta < 0;
    return {
      key: g.key,
      label: g.label,
      isBaseline: g.isBaseline,
      n: s?.n ?? 0,
      median: s?.median ?? null,
      min: s?.min ?? null,
      max: s?.max ?? null,
      stdev: s?.stdev ?? null,
      values: s?.values ?? [],
      deltaPct: g.isBaseline ? 0 : delta,
      better,
    };
  });
}

export { METRIC_SHORT };
