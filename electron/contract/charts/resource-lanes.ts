// The resource lanes of a run (issue 31) as one echarts option: GPU utilisation, PCIe throughput and
// CPU cores busy, one grid each, over the run's time, with the end of warm-up marked. A lane that was
// not measured is not drawn (no zero line): its grid carries "not available: why" instead. Only the
// parts echarts-parts.ts registers (line series, grids, title, legend, tooltip, markLine).
import type { EChartsOption } from 'echarts';
import type { ResourceRecord } from '../resources';

const LANES = [
  { key: 'gpu', title: 'GPU busy (%)' },
  { key: 'pcie', title: 'PCIe rx + tx per GPU (GB/s)' },
  { key: 'cpu', title: 'CPU cores at ≥ 90%' },
] as const;

export function resourceLanesOption(record: ResourceRecord): EChartsOption {
  const x = (t: number) => Number((t / 1000).toFixed(2));
  const warmupEnd = record.steps.filter((s) => s.warmup).at(-1);
  const gpuIndexes = [...new Set(record.samples.flatMap((s) => s.gpus.map((g) => g.index)))].sort((a, b) => a - b);
  const height = 22; // percent of the chart per lane
  const top = (i: number) => 8 + i * (height + 9);
  const grid = LANES.map((_, i) => ({ left: 56, right: 16, top: `${top(i)}%`, height: `${height}%` }));
  // One time scale for every lane (each axis would otherwise round its own end): the last sample's time.
  const end = record.samples.length ? x(record.samples[record.samples.length - 1].t) : undefined;
  const xAxis = LANES.map((_, i) => ({
    type: 'value' as const,
    gridIndex: i,
    name: i === LANES.length - 1 ? 's' : '',
    min: 0,
    max: end,
    axisLabel: { show: i === LANES.length - 1 },
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
  if (a.gpu.available)
    for (const g of gpuIndexes)
      series.push({
        type: 'line',
        name: `GPU ${g}`,
        xAxisIndex: 0,
        yAxisIndex: 0,
        showSymbol: false,
        data: record.samples.map((s) => [x(s.t), s.gpus.find((r) => r.index === g)?.utilPct ?? null]),
        markLine: g === gpuIndexes[0] ? mark : undefined,
      });
  if (a.pcie.available)
    for (const g of gpuIndexes)
      series.push({
        type: 'line',
        name: `PCIe ${g}`,
        xAxisIndex: 1,
        yAxisIndex: 1,
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
  if (a.cpu.available)
    series.push({
      type: 'line',
      name: 'cores ≥ 90%',
      xAxisIndex: 2,
      yAxisIndex: 2,
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
