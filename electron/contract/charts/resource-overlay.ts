// Two runs' resource lanes on one time axis (Compare): GPU busy, PCIe rx + tx per GPU and
// CPU cores at ≥ 90% (CPU Adam) of run A (solid) and run B (dashed), each run's time counted from the
// start of its first measured step to the end of its last, so the steady state of two strategies lines
// up whatever their start-up, warm-up and teardown took. A lane a run did not measure has no series:
// the lane's title says "B: not available: why", never zeros.
import type { EChartsOption } from 'echarts';
import type { ResourceRecord } from '../resources';

export interface OverlayRun {
  label: string;
  record: ResourceRecord | null;
  /** Why there is no record (runs/resources' `missing`). */
  missing?: string | null;
}

/**
 * Where a run's time 0 lies on its sampler's clock (ms), and from what; `t1`: where the overlay stops —
 * the first sample after the last measured step (a sample stands for the interval before it), so the
 * teardown after training is not compared; no measured step: the whole record.
 */
export function overlayOrigin(record: ResourceRecord): { t0: number; t1: number; from: 'first measured step' | 'start of sampling' } {
  const measured = record.steps.filter((s) => !s.warmup).sort((x, y) => x.endT - y.endT);
  if (!measured.length) return { t0: 0, t1: Infinity, from: 'start of sampling' };
  const first = measured[0];
  const lastEnd = measured[measured.length - 1].endT;
  const after = record.samples.find((s) => s.t >= lastEnd);
  return { t0: Math.max(0, first.endT - first.seconds * 1000), t1: after ? after.t : lastEnd, from: 'first measured step' };
}

const LANES = [
  { key: 'gpu', title: 'GPU busy (%)' },
  { key: 'pcie', title: 'PCIe rx + tx per GPU (GB/s)' },
  { key: 'cpu', title: 'CPU cores at ≥ 90%' },
] as const;
/** Pixel layout (the card draws it 420 px high): each lane a title line, then its grid. */
const TITLE_TOP = (i: number) => 30 + i * 118;
const GRID_HEIGHT = 74;
export const OVERLAY_HEIGHT = 420;
const STYLE = [
  { color: '#2563eb', type: 'solid' as const },
  { color: '#d97706', type: 'dashed' as const },
];

export function resourceOverlayOption(a: OverlayRun, b: OverlayRun): EChartsOption {
  const runs = [a, b];
  const grid = LANES.map((_, i) => ({ left: 56, right: 16, top: TITLE_TOP(i) + 22, height: GRID_HEIGHT }));
  const xAxis = LANES.map((_, i) => ({
    type: 'value' as const,
    gridIndex: i,
    min: 0,
    name: i === LANES.length - 1 ? 's from the first measured step' : '',
    nameLocation: 'middle' as const,
    nameGap: 24,
    axisLabel: { show: i === LANES.length - 1 },
  }));
  const yAxis = LANES.map((l, i) => ({
    type: 'value' as const,
    gridIndex: i,
    min: 0,
    max: l.key === 'gpu' ? 100 : undefined,
    splitNumber: 2,
  }));
  const series: NonNullable<EChartsOption['series']> = [];
  const notes: string[][] = LANES.map(() => []);
  runs.forEach((run, r) => {
    const name = r === 0 ? 'A' : 'B';
    if (!run.record) {
      LANES.forEach((_, i) => notes[i].push(`${name}: not available: ${run.missing ?? 'no resource samples'}`));
      return;
    }
    const rec = run.record;
    const { t0, t1, from } = overlayOrigin(rec);
    if (from !== 'first measured step') notes[0].push(`${name}: no measured step, from the start of sampling`);
    const x = (t: number) => Number(((t - t0) / 1000).toFixed(2));
    const kept = rec.samples.filter((s) => s.t > t0 && s.t <= t1);
    // Measured steps shorter than the sampling interval, and the run over before the next sample: nothing to draw, said once.
    if (!kept.length) {
      notes[0].push(
        `${name}: no sample inside its measured steps (${((t1 - t0) / 1000).toFixed(2)} s; one every ${rec.intervalMs / 1000} s)`,
      );
      return;
    }
    const gpuIndexes = [...new Set(kept.flatMap((s) => s.gpus.map((g) => g.index)))].sort((p, q) => p - q);
    LANES.forEach((lane, i) => {
      const state = rec.availability[lane.key];
      if (!state.available) {
        notes[i].push(`${name}: not available: ${state.reason ?? 'not measured'}`);
        return;
      }
      if (lane.key === 'cpu') {
        const data = kept.filter((s) => s.cpuBusyPct.length).map((s) => [x(s.t), s.cpuBusyPct.filter((p) => p >= 90).length]);
        series.push({
          type: 'line',
          name: `${name} · cores ≥ 90%`,
          xAxisIndex: i,
          yAxisIndex: i,
          showSymbol: data.length < 4,
          step: 'end',
          itemStyle: { color: STYLE[r].color },
          lineStyle: { color: STYLE[r].color, type: STYLE[r].type },
          data,
        });
        return;
      }
      for (const g of gpuIndexes)
        series.push({
          type: 'line',
          name: `${name} · ${lane.key === 'gpu' ? 'GPU' : 'PCIe'} ${g}`,
          xAxisIndex: i,
          yAxisIndex: i,
          showSymbol: kept.length < 4, // a lone point is otherwise invisible
          itemStyle: { color: STYLE[r].color },
          lineStyle: { color: STYLE[r].color, type: STYLE[r].type },
          data: kept.map((s) => {
            const q = s.gpus.find((v) => v.index === g);
            if (lane.key === 'gpu') return [x(s.t), q?.utilPct ?? null];
            return [
              x(s.t),
              q && (q.pcieRxMBps !== null || q.pcieTxMBps !== null) ? ((q.pcieRxMBps ?? 0) + (q.pcieTxMBps ?? 0)) / 1000 : null,
            ];
          }),
        });
    });
  });
  const title = [
    { text: `A (solid): ${a.label}   B (dashed): ${b.label}`, left: 8, top: 0, textStyle: { fontSize: 12, fontWeight: 'normal' as const } },
    ...LANES.map((l, i) => ({
      text: [l.title, ...notes[i]].join(' — '),
      left: 56,
      top: TITLE_TOP(i),
      textStyle: { fontSize: 12, fontWeight: 'normal' as const },
    })),
  ];
  return { animation: false, title, grid, xAxis, yAxis, series, tooltip: { trigger: 'axis' }, legend: { show: false } };
}
