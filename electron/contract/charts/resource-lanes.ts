// The resource lanes of a run as one echarts option: GPU utilisation, PCIe throughput and
// CPU cores busy, one grid each, over the run's time, with the end of warm-up marked. A lane that was
// not measured is not drawn (no zero line): its grid carries "not available: why" instead. A caller
// may leave lanes out altogether (the report drops a lane none of its runs measured: `lanes`). Only the
// parts echarts-parts.ts registers (line series, grids, title, legend, tooltip, markLine).
import type { EChartsOption } from 'echarts';
import { LANES, type Lane, type ResourceRecord } from '../resources';

export const RESOURCE_LANES = [
  { key: 'gpu', title: 'GPU busy (%)', name: 'GPU busy' },
  { key: 'pcie', title: 'PCIe rx + tx per GPU (GB/s)', name: 'PCIe' },
  { key: 'cpu', title: 'CPU cores at ≥ 90%', name: 'CPU cores' },
] as const;
export type ResourceLaneKey = (typeof RESOURCE_LANES)[number]['key'];

/** Each stored lane's name in sentences (the drawn ones as their charts' titles begin). */
export const LANE_NAME: Record<Lane, string> = {
  gpu: 'GPU busy',
  pcie: 'PCIe',
  nvlink: 'NVLink',
  cpu: 'CPU cores',
  memory: 'memory',
  disk: 'disk',
};

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * The lanes to draw for `records` (one run on its page, a report's runs): those any of them measured —
 * a lane none measured (GPU busy, PCIe and NVLink on a machine without a GPU) is left out, not drawn
 * empty under "not available" — and those lanes in one clause with why: "GPU busy, PCIe and NVLink (no
 * NVIDIA GPU on this machine)" (null when every lane was measured by one of them).
 */
export function lanesToDraw(records: readonly ResourceRecord[]): { drawn: ResourceLaneKey[]; notMeasured: Lane[]; words: string | null } {
  const measured = (lane: Lane) => records.some((r) => r.availability[lane].available);
  const drawn = RESOURCE_LANES.filter((l) => measured(l.key)).map((l) => l.key);
  const notMeasured = LANES.filter((lane) => !measured(lane));
  // Lanes with the same reason(s) share them.
  const byReason = new Map<string, string[]>();
  for (const lane of notMeasured) {
    const why = [...new Set(records.map((r) => r.availability[lane].reason ?? 'no reason recorded'))].join('; ');
    byReason.set(why, [...(byReason.get(why) ?? []), LANE_NAME[lane]]);
  }
  const words = notMeasured.length ? [...byReason].map(([why, names]) => `${listOf(names)} (${why})`).join('; ') : null;
  return { drawn, notMeasured, words };
}

/** The chart's height in px for `lanes` lanes: 360 for three, less for fewer, room above the first lane for its title. */
export const lanesChartHeight = (lanes: number) => [0, 260, 300, 360][Math.min(3, lanes)];

/** `lanes`: which lanes get a grid, in this order (default all three); the others are left out, not drawn empty. */
export function resourceLanesOption(record: ResourceRecord, lanes: readonly ResourceLaneKey[] = ['gpu', 'pcie', 'cpu']): EChartsOption {
  const LANES = RESOURCE_LANES.filter((l) => lanes.includes(l.key));
  const at = (key: ResourceLaneKey) => LANES.findIndex((l) => l.key === key);
  const x = (t: number) => Number((t / 1000).toFixed(2));
  const warmupEnd = record.steps.filter((s) => s.warmup).at(-1);
  const gpuIndexes = [...new Set(record.samples.flatMap((s) => s.gpus.map((g) => g.index)))].sort((a, b) => a - b);
  // Three lanes: 22 % of the chart each, 9 % apart; fewer lanes share the same span.
  const height = 93 / Math.max(LANES.length, 1) - 9; // percent of the chart per lane
  const top = (i: number) => 8 + i * (height + 9);
  // Room on the right for half the last time label ("17.55 s"), which sits at the axis' end.
  const grid = LANES.map((_, i) => ({ left: 56, right: 28, top: `${top(i)}%`, height: `${height}%` }));
  // One time scale for every lane (each axis would otherwise round its own end): the last sample's time.
  const end = record.samples.length ? x(record.samples[record.samples.length - 1].t) : undefined;
  const xAxis = LANES.map((_, i) => ({
    type: 'value' as const,
    gridIndex: i,
    min: 0,
    max: end,
    // The unit on each time label: an axis name "s" after the last one sat against it ("17.55 s" read as one label, or "17.55s").
    axisLabel: { show: i === LANES.length - 1, formatter: (v: number) => `${v} s` },
  }));
  const yAxis = LANES.map((l, i) => ({
    type: 'value' as const,
    gridIndex: i,
    min: 0,
    max: l.key === 'gpu' ? 100 : undefined,
    splitNumber: 2,
  }));
  const mark = warmupEnd
    ? {
        symbol: 'none',
        silent: true,
        lineStyle: { type: 'dashed' as const, color: '#888' },
        label: { formatter: 'warm-up ends', fontSize: 10 },
        data: [{ xAxis: x(warmupEnd.endT) }],
      }
    : undefined;
  const series: NonNullable<EChartsOption['series']> = [];
  const a = record.availability;
  if (a.gpu.available && at('gpu') >= 0)
    for (const g of gpuIndexes)
      series.push({
        type: 'line',
        name: `GPU ${g}`,
        xAxisIndex: at('gpu'),
        yAxisIndex: at('gpu'),
        showSymbol: false,
        data: record.samples.map((s) => [x(s.t), s.gpus.find((r) => r.index === g)?.utilPct ?? null]),
        markLine: g === gpuIndexes[0] ? mark : undefined,
      });
  if (a.pcie.available && at('pcie') >= 0)
    for (const g of gpuIndexes)
      series.push({
        type: 'line',
        name: `PCIe ${g}`,
        xAxisIndex: at('pcie'),
        yAxisIndex: at('pcie'),
        showSymbol: false,
        data: record.samples.map((s) => {
          const r = s.gpus.find((q) => q.index === g);
          return [
            x(s.t),
            r && (r.pcieRxMBps !== null || r.pcieTxMBps !== null) ? ((r.pcieRxMBps ?? 0) + (r.pcieTxMBps ?? 0)) / 1000 : null,
          ];
        }),
        markLine: g === gpuIndexes[0] ? mark : undefined,
      });
  if (a.cpu.available && at('cpu') >= 0)
    series.push({
      type: 'line',
      name: 'cores ≥ 90%',
      xAxisIndex: at('cpu'),
      yAxisIndex: at('cpu'),
      showSymbol: false,
      step: 'end',
      data: record.samples.filter((s) => s.cpuBusyPct.length).map((s) => [x(s.t), s.cpuBusyPct.filter((p) => p >= 90).length]),
      markLine: mark,
    });
  const title = LANES.map((l, i) => {
    const state = a[l.key];
    return {
      text: state.available ? l.title : `${l.title}: not available: ${state.reason}`,
      top: `${top(i) - 6}%`,
      left: 56,
      textStyle: { fontSize: 12, fontWeight: 'normal' as const },
    };
  });
  return { animation: false, title, grid, xAxis, yAxis, series, tooltip: { trigger: 'axis' }, legend: { show: false } };
}
