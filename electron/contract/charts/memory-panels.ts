// Memory per resource, each resource in its own panel against its own capacity: GPU (per GPU),
// host (per node), NVMe (per node, only when something uses it). Never stacked, never GiB and
// TiB on one axis: each panel picks its own unit. Bars take the strategy's colour; the strategy
// names are written once, on the left. Pure; type imports only.
import type { EChartsOption } from 'echarts';
import { formatFigure } from '../format';
import { escapeHtml } from './escape';

export interface MemoryRow {
  label: string;
  color: string;
  gpuBytes: number | null;
  hostBytes: number | null;
  nvmeBytes: number | null;
}

export interface MemoryCapacity {
  gpuBytes: number | null;
  hostBytes: number | null;
  nvmeBytes: number | null;
}

export interface PanelTheme {
  text: string;
  muted: string;
  grid: string;
}

const GIB = 2 ** 30;
const TIB = 2 ** 40;

/** The unit a panel shows: TiB once its largest figure reaches 1 TiB. */
export function unitFor(maxBytes: number): { name: 'GiB' | 'TiB'; div: number } {
  return maxBytes >= TIB ? { name: 'TiB', div: TIB } : { name: 'GiB', div: GIB };
}

/**
 * A panel's end and its tick interval: about three steps of 1, 2 or 5 × 10^k, the end a whole number of
 * them. The end alone rounded to 5s (25 for a 23.5 GiB host) left echarts' 10s one short step at the end:
 * "0 10 20 25".
 */
const scaleTo = (v: number): { max: number; interval: number } => {
  if (!(v > 0)) return { max: 1, interval: 0.5 };
  const raw = v / 3;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const interval = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw)!;
  return { max: Math.ceil(v / interval - 1e-9) * interval, interval };
};
// The shared figure formatter: a tiny model's 0.0023 GiB stays 0.0023, not toFixed(2)'s 0.00.
const fmt = (v: number) => formatFigure(v, v >= 100 ? 0 : v >= 10 ? 1 : 2, false);

type Key = 'gpuBytes' | 'hostBytes' | 'nvmeBytes';
// Short axis names (a panel can be ~110 px wide at 1280); the tooltip says per GPU / per node.
const PANELS: { key: Key; title: string; short: string }[] = [
  { key: 'gpuBytes', title: 'GPU memory (per GPU)', short: 'GPU' },
  { key: 'hostBytes', title: 'host memory (per node)', short: 'host' },
  { key: 'nvmeBytes', title: 'NVMe (per node)', short: 'NVMe' },
];

/**
 * Horizontal bars, one panel per resource side by side. `top` leaves room for a title above.
 * A row with no figure for a resource (a strategy that does not fit, a run without a reading)
 * has no bar there, and its value reads "—" in the tooltip.
 */
export function memoryPanelsOption(
  rows: MemoryRow[],
  capacity: MemoryCapacity,
  theme: PanelTheme,
  opts: { top?: number; title?: EChartsOption['title'] } = {},
): EChartsOption {
  // NVMe only where a row uses it; GPU only where a row has a GPU figure or the machine a GPU: CPU runs
  // once drew an empty GPU panel whose "0.9 1" ticks ran into the host panel's "0".
  const panels = PANELS.filter((p) =>
    p.key === 'nvmeBytes'
      ? rows.some((r) => (r.nvmeBytes ?? 0) > 0)
      : p.key === 'gpuBytes'
        ? rows.some((r) => (r.gpuBytes ?? 0) > 0) || (capacity.gpuBytes ?? 0) > 0
        : true,
  );
  const top = opts.top ?? 40;
  // The names are written once, left of the first panel, in a margin sized to the longest one;
  // the panels split the rest (the first panel's share includes that margin, so widths even out).
  const labelPx = 16 + Math.max(40, ...rows.map((r) => r.label.length * 6.6));
  const splits = panels.length === 1 ? [0, 97] : panels.length === 2 ? [0, 58, 97] : [0, 44, 71, 97];
  const gapPct = 4;
  const grid = panels.map((_, i) => ({
    top,
    bottom: 58,
    left: i === 0 ? labelPx : `${splits[i] + gapPct / 2}%`,
    right: `${100 - splits[i + 1] + (i < panels.length - 1 ? gapPct / 2 : 0)}%`,
  }));
  const units = panels.map((p) => unitFor(Math.max(0, ...rows.map((r) => r[p.key] ?? 0), capacity[p.key] ?? 0)));
  const categories = rows.map((r) => r.label);
  return {
    animation: false,
    ...(opts.title ? { title: opts.title } : {}),
    textStyle: { color: theme.text },
    tooltip: { trigger: 'item', confine: true },
    grid,
    xAxis: panels.map((p, i) => {
      const values = rows.map((r) => (r[p.key] ?? 0) / units[i].div);
      const cap = capacity[p.key];
      const { max, interval } = scaleTo(1.05 * Math.max(0, ...values, cap ? cap / units[i].div : 0));
      return {
        type: 'value' as const,
        gridIndex: i,
        min: 0,
        max,
        interval,
        // The capacity is named under its panel (the dashed line marks it): no label inside the bars.
        name: cap ? `${p.short}, ${units[i].name}\ncapacity ${fmt(cap / units[i].div)}` : `${p.short}, ${units[i].name}`,
        nameLocation: 'middle' as const,
        nameGap: 24,
        nameTextStyle: { color: theme.muted, lineHeight: 15 },
        axisLabel: { color: theme.muted, hideOverlap: true },
        axisLine: { lineStyle: { color: theme.grid } },
        splitLine: { lineStyle: { color: theme.grid } },
      };
    }),
    yAxis: panels.map((_, i) => ({
      type: 'category' as const,
      gridIndex: i,
      inverse: true,
      data: categories,
      axisTick: { show: false },
      axisLine: { lineStyle: { color: theme.grid } },
      axisLabel: i === 0 ? { color: theme.text } : { show: false },
    })),
    series: panels.map((p, i) => {
      const cap = capacity[p.key];
      return {
        name: p.title,
        type: 'bar' as const,
        xAxisIndex: i,
        yAxisIndex: i,
        barMaxWidth: 18,
        data: rows.map((r) => ({
          value: r[p.key] == null ? null : Number((r[p.key]! / units[i].div).toPrecision(4)),
          itemStyle: { color: r.color },
        })),
        tooltip: {
          formatter: (q: { name?: string; value?: unknown }) =>
            `${escapeHtml(q.name)}<br/>${p.title}: ${typeof q.value === 'number' ? `${fmt(q.value)} ${units[i].name}` : '—'}${cap ? ` of ${fmt(cap / units[i].div)} ${units[i].name}` : ''}`,
        },
        ...(cap
          ? {
              markLine: {
                symbol: 'none',
                silent: true,
                lineStyle: { type: 'dashed' as const, color: theme.muted },
                label: { show: false },
                data: [{ xAxis: Number((cap / units[i].div).toPrecision(4)) }],
              },
            }
          : {}),
      };
    }),
  } as EChartsOption;
}
