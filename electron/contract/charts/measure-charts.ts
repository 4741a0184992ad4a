// The CPU Adam sweep as a curve: params/s by thread count, with the recommended point marked.
import type { EChartsOption } from 'echarts';
import type { Measurement } from '../measure';

export function cpuAdamCurveOption(m: Measurement): EChartsOption {
  const knee = m.recommendedThreads ?? null;
  return {
    animation: false,
    // Room above for the knee's marker and label; the x-axis starts one thread before the first measured.
    grid: { left: 16, right: 24, top: 48, bottom: 40, containLabel: true },
    tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => `${Number(v).toFixed(2)} G params/s` },
    xAxis: {
      type: 'value',
      name: 'threads',
      nameLocation: 'middle',
      nameGap: 24,
      minInterval: 1,
      // One thread before the first measured: the first point (often the recommended dot, at 1 thread)
      // stands clear of the y-axis instead of sitting on it.
      min: m.cpuAdam.length ? Math.max(0, Math.min(...m.cpuAdam.map((p) => p.threads)) - 1) : 0,
      max: 'dataMax',
    },
    yAxis: { type: 'value', name: 'G params/s', nameTextStyle: { align: 'left' } },
    series: [
      {
        type: 'line',
        name: 'CPU Adam',
        data: m.cpuAdam.map((p) => [p.threads, p.paramsPerSecond / 1e9]),
        // A dot with its words beside it, not a pin: the pin rose over the y-axis name at 1 thread ("1 params/s").
        // The words sit where the rising curve is not: below and to the right of the dot, or, at the last
        // point, above and to its left (beside the dot, the line ran through them).
        markPoint: knee
          ? {
              symbol: 'circle',
              symbolSize: 10,
              label: {
                ...(knee >= Math.max(...m.cpuAdam.map((p) => p.threads))
                  ? { position: 'top' as const, align: 'right' as const }
                  : { position: 'bottom' as const, align: 'left' as const }),
                formatter: `${knee} thread${knee === 1 ? '' : 's'} (recommended)`,
                fontSize: 11,
              },
              data: m.cpuAdam
                .filter((p) => p.threads === knee)
                .map((p) => ({ coord: [p.threads, p.paramsPerSecond / 1e9] as [number, number], value: knee, name: 'knee' })),
            }
          : undefined,
      },
    ],
  };
}
