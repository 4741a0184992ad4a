// Chart options for the Plan page (pure; type imports only): predicted TFLOPS per GPU per
// strategy, and memory per resource, each against its own capacity. A strategy that does not fit
// has no bar (its category says "does not fit"): nothing is drawn for a run that cannot happen.
import type { EChartsOption } from 'echarts';
import type { PlanResult } from '../plan';
import { LIGHT_THEME, type ChartTheme } from './compare-charts';
import { strategyColor, strategyLabel } from './labels';
import { escapeHtml } from './escape';
import { memoryPanelsOption } from './memory-panels';

/** Height the Plan charts need for n strategies (rows of 30 px plus axes). */
export function planChartHeight(n: number): number {
  return 90 + n * 30;
}

export function predictedTflopsOption(plan: PlanResult, TEXT: ChartTheme = LIGHT_THEME): EChartsOption {
  const rows = plan.strategies;
  const rec = plan.recommended?.strategyId;
  const value = (s: (typeof rows)[number]) => (s.spec?.prediction ?? s.predicted).tflopsPerGpu;
  return {
    animation: false,
    textStyle: { color: TEXT.text },
    // containLabel: the names and the values are inside the chart's box, whatever its width.
    grid: { left: 8, right: 56, top: 12, bottom: 44, containLabel: true },
    tooltip: { trigger: 'item', confine: true, formatter: (p: unknown) => { const q = p as { name: string; value: number | null }; const name = escapeHtml(q.name); return q.value == null ? `${name}: does not fit` : `${name}: ${q.value} TFLOPS/GPU (predicted)`; } },
    xAxis: {
      type: 'value',
      min: 0,
      splitNumber: 4,
      name: 'predicted model TFLOPS per GPU',
      nameLocation: 'middle',
      nameGap: 28,
      nameTextStyle: { color: TEXT.muted },
      axisLabel: { color: TEXT.muted, hideOverlap: true },
      splitLine: { lineStyle: { color: TEXT.grid } },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: rows.map((s) => strategyLabel(s.id)),
      axisTick: { show: false },
      axisLabel: {
        formatter: (name: string, i: number) => (rows[i]?.fits ? (rows[i].id === rec ? `{rec|${name} ★}` : name) : `{nofit|${name} — does not fit}`),
        rich: { rec: { fontWeight: 'bold', color: TEXT.text }, nofit: { color: TEXT.muted } },
        color: TEXT.text,
      },
    },
    series: [
      {
        type: 'bar',
        name: 'TFLOPS / GPU',
        barMaxWidth: 18,
        data: rows.map((s) => ({
          value: s.fits && value(s) > 0 ? Number(value(s).toFixed(1)) : null,
          itemStyle: { color: strategyColor(s.id) },
        })),
        label: { show: true, position: 'right', color: TEXT.text, formatter: (p: unknown) => { const v = (p as { value: number | null }).value; return v == null ? '' : String(v); } },
      },
    ],
  } as EChartsOption;
}

export function memoryOption(plan: PlanResult, TEXT: ChartTheme = LIGHT_THEME): EChartsOption {
  const rows = plan.strategies.map((s) => ({
    label: strategyLabel(s.id),
    color: strategyColor(s.id),
    gpuBytes: s.memory.gpuBytes,
    hostBytes: s.memory.hostBytes,
    nvmeBytes: s.memory.nvmeBytes,
  }));
  const p = plan.profile;
  return memoryPanelsOption(rows, { gpuBytes: p.gpuMemoryBytes || null, hostBytes: p.hostMemoryBytes || null, nvmeBytes: p.nvmeBytes || null }, TEXT, { top: 12 });
}
