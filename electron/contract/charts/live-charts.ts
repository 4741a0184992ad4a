// Live charts of a running sweep (pure: the contract's formatter and types only): TFLOPS/GPU and memory per step,
// one line per run.
import type { EChartsOption } from 'echarts';
import { formatCompact } from '../format';
import type { RunSample } from '../step-sample';
import { escapeHtml } from './escape';
import { strategyColor } from './labels';
import { stepXAxis } from './step-axis';

export interface LiveSeriesInput {
  name: string;
  /** The strategy id: its colour is the one every chart gives it. */
  strategy?: string;
  /** Stored samples or live progress events: the step sample's fields the charts draw. */
  points: Pick<RunSample, 'step' | 'warmup' | 'tflopsPerGpu' | 'gpuPeakBytes' | 'hostRssBytes' | 'stepSeconds'>[];
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
    grid: {
      left: 16,
      right: 20,
      top: legendTop(runs.flatMap((r) => [`${r.name} · GPU peak`, `${r.name} · host RSS`])),
      bottom: 36,
      containLabel: true,
    },
    tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => `${Number(v).toFixed(2)} GiB` },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 22, minInterval: 1, min: 'dataMin', max: 'dataMax' },
    yAxis: { type: 'value', name: 'GiB', nameGap: 12 },
    series: runs.flatMap((r) => [
      {
        type: 'line' as const,
        name: `${r.name} · GPU peak`,
        ...(r.strategy ? { itemStyle: { color: strategyColor(r.strategy) } } : {}),
        data: r.points.filter((p) => p.gpuPeakBytes !== null).map((p) => [p.step, (p.gpuPeakBytes ?? 0) / GiB]),
      },
      {
        type: 'line' as const,
        name: `${r.name} · host RSS`,
        ...(r.strategy ? { itemStyle: { color: strategyColor(r.strategy) } } : {}),
        lineStyle: { type: 'dashed' as const },
        data: r.points.filter((p) => p.hostRssBytes !== null).map((p) => [p.step, (p.hostRssBytes ?? 0) / GiB]),
      },
    ]),
  };
}

/**
 * Round axis bounds around [lo, hi] with a little room, on a 1/2/2.5/5 × 10ⁿ grid (never below 0).
 * The span is at least a tenth of the top, so step-to-step noise of 1 % does not fill the chart.
 */
export function niceBounds(lo: number, hi: number, ticks = 4): { min: number; max: number; interval: number } {
  const span = Math.max(hi - lo, Math.abs(hi) * 0.1) || 1;
  const raw = (span * 1.3) / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const interval = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((x) => x >= raw) ?? 10 * mag;
  const round = (v: number) => Number(v.toPrecision(12));
  const min = Math.max(0, round(Math.floor((lo - span * 0.15) / interval) * interval));
  const max = round(Math.ceil((hi + span * 0.15) / interval) * interval);
  return { min, max: max > min ? max : round(min + interval), interval };
}

type StepPoint = LiveSeriesInput['points'][number];

/**
 * One stored run's steps: step time (left axis) and TFLOPS per GPU (right axis) over its steps, in
 * the strategy's colour. Both axes are scaled to the MEASURED steps (the figures a run is judged
 * by): warm-up steps (not counted; the first one builds kernels and caches, ~5× slower) are their
 * own grey "warm-up" series (hollow circles: step time; hollow triangles: TFLOPS), and one off the scale sits on the axis' edge as an arrow pointing
 * where its value lies, labelled with it. `warmupOffScale` lists those, for a note beside the chart.
 * The x-axis starts at the first step.
 */
export function runStepsOption(points: StepPoint[], strategy: string, muted = '#5d6672'): EChartsOption {
  const color = strategyColor(strategy);
  const measured = points.filter((p) => !p.warmup);
  const warm = points.filter((p) => p.warmup);
  const hasTflops = points.some((p) => p.tflopsPerGpu != null);
  const finite = (xs: (number | null)[]) => xs.filter((x): x is number => x != null && Number.isFinite(x));
  const boundsOf = (xs: number[]) => (xs.length ? niceBounds(Math.min(...xs), Math.max(...xs)) : null);
  // Measured steps set the scale; with none measured (a failed run), the warm-up steps do.
  const stepBounds = boundsOf(finite((measured.length ? measured : points).map((p) => p.stepSeconds)));
  const tflopsBounds = boundsOf(finite((measured.some((p) => p.tflopsPerGpu != null) ? measured : points).map((p) => p.tflopsPerGpu)));
  /** A warm-up point: as it is within the scale, else on the edge as an arrow toward its value. */
  const warmPoint = (
    step: number,
    value: number,
    b: { min: number; max: number } | null,
    unit: string,
    labelled: boolean,
    symbol: string,
  ) => {
    const above = b != null && value > b.max;
    const below = b != null && value < b.min;
    if (!above && !below) return { value: [step, value], actual: value, symbol, symbolSize: 8 };
    return {
      value: [step, above ? b!.max : b!.min],
      actual: value,
      symbol: 'arrow',
      symbolSize: [10, 12],
      symbolRotate: above ? 0 : 180,
      ...(labelled
        ? {
            label: {
              show: true,
              position: 'right' as const,
              color: muted,
              fontSize: 11,
              formatter: `warm-up ${formatCompact(value)} ${unit} ${above ? '↑' : '↓'}`,
            },
          }
        : {}),
    };
  };
  const stepOff = warm.filter((p) => stepBounds && (p.stepSeconds > stepBounds.max || p.stepSeconds < stepBounds.min));
  const warmStep = warm.map((p) =>
    warmPoint(
      p.step,
      p.stepSeconds,
      stepBounds,
      's',
      p === stepOff.reduce<StepPoint | null>((a, b) => (a && a.stepSeconds >= b.stepSeconds ? a : b), null),
      'emptyCircle',
    ),
  );
  const warmTflops = warm
    .filter((p) => p.tflopsPerGpu != null)
    .map((p) => warmPoint(p.step, p.tflopsPerGpu!, tflopsBounds, 'TFLOPS', false, 'emptyTriangle'));

  return {
    animation: false,
    legend: { top: 0, type: 'plain', textStyle: { color: muted } },
    grid: { left: 16, right: 16, top: 40, bottom: 36, containLabel: true },
    tooltip: {
      trigger: 'axis',
      confine: true,
      formatter: (params: unknown) => {
        const list = (Array.isArray(params) ? params : [params]) as {
          marker?: string;
          seriesName?: string;
          value?: unknown;
          data?: { actual?: number };
        }[];
        const step = (list[0]?.value as number[] | undefined)?.[0];
        return [
          `step ${step}`,
          ...list.map((p) => `${p.marker ?? ''}${escapeHtml(p.seriesName)}: ${formatCompact(p.data?.actual ?? (p.value as number[])[1])}`),
        ].join('<br/>');
      },
    },
    xAxis: stepXAxis(),
    yAxis: [
      { type: 'value', name: 'step s', ...(stepBounds ?? { scale: true }), nameTextStyle: { align: 'left' } },
      ...(hasTflops
        ? [
            {
              type: 'value' as const,
              name: 'TFLOPS/GPU',
              ...(tflopsBounds ?? { scale: true }),
              splitLine: { show: false },
              nameTextStyle: { align: 'right' as const },
            },
          ]
        : []),
    ],
    series: [
      {
        type: 'line',
        name: 'step time (s)',
        itemStyle: { color },
        symbol: 'circle',
        data: measured.map((p) => ({ value: [p.step, p.stepSeconds] })),
      },
      ...(hasTflops
        ? [
            {
              type: 'line' as const,
              name: 'TFLOPS/GPU',
              yAxisIndex: 1,
              lineStyle: { type: 'dashed' as const },
              itemStyle: { color },
              symbol: 'triangle',
              data: measured.filter((p) => p.tflopsPerGpu != null).map((p) => ({ value: [p.step, p.tflopsPerGpu] })),
            },
          ]
        : []),
      // Warm-up: grey, not joined to the measured line, one legend entry for both axes.
      ...(warm.length
        ? [
            { type: 'line' as const, name: 'warm-up', itemStyle: { color: muted }, lineStyle: { opacity: 0 }, data: warmStep },
            ...(hasTflops && warmTflops.length
              ? [
                  {
                    type: 'line' as const,
                    name: 'warm-up',
                    yAxisIndex: 1,
                    itemStyle: { color: muted },
                    lineStyle: { opacity: 0 },
                    data: warmTflops,
                  },
                ]
              : []),
          ]
        : []),
    ],
  } as EChartsOption;
}

/** The warm-up steps off the measured steps' scale, for a note beside the chart: "step 1: 11.2 s, 0.9 TFLOPS/GPU" (only the figures off it). */
export function warmupOffScale(points: StepPoint[]): string[] {
  const option = runStepsOption(points, 'x') as { yAxis: { min?: number; max?: number }[] };
  const [s, t] = option.yAxis;
  const out = (v: number | null, b: { min?: number; max?: number } | undefined) =>
    v != null && b?.min != null && b.max != null && (v < b.min || v > b.max);
  return (
    points
      .filter((p) => p.warmup && (out(p.stepSeconds, s) || out(p.tflopsPerGpu, t)))
      // only the figures off the scale: one drawn where it lies needs no note
      .map((p) => {
        const off = [
          out(p.stepSeconds, s) ? `${formatCompact(p.stepSeconds)} s` : null,
          out(p.tflopsPerGpu, t) ? `${formatCompact(p.tflopsPerGpu)} TFLOPS/GPU` : null,
        ];
        return `step ${p.step}: ${off.filter((x) => x !== null).join(', ')}`;
      })
  );
}
