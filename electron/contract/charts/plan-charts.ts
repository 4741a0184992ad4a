// Chart options for the Plan page (pure; type imports only): predicted TFLOPS per GPU per
// strategy, and memory per resource, each against its own capacity. A strategy that does not fit
// has no bar (its category says why, in the Plan table's words: "needs a GPU", "needs more GPU
// memory"…): nothing is drawn for a run that cannot happen; nor for a CPU smoke run, which has no
// prediction (its category says so), rather than a bar at 0.
import type { EChartsOption } from 'echarts';
import type { PlanResult } from '../plan';
import { LIGHT_THEME, type ChartTheme } from './compare-charts';
import { formatFigure, hasPrediction, NO_PREDICTION_WHY } from '../format';
import { strategyColor, strategyLabel, verdictWords } from './labels';
import { escapeHtml } from './escape';
import { memoryPanelsOption } from './memory-panels';

/** Height the Plan charts need for n strategies (rows of 30 px plus axes). */
export function planChartHeight(n: number): number {
  return 90 + n * 30;
}

/**
 * The speed a plan row shows: its spec's prediction — at the micro batch and knobs it runs with — else
 * the form's. The Plan table, this chart and the CLI's table read it here (the CLI once printed the
 * form's micro 1 figures beside a page at the searched micro 9).
 */
export function rowPrediction(s: PlanResult['strategies'][number]): { stepSeconds: number; tflopsPerGpu: number } {
  return s.spec?.prediction ?? s.predicted;
}

export function predictedTflopsOption(plan: PlanResult, TEXT: ChartTheme = LIGHT_THEME): EChartsOption {
  const rows = plan.strategies;
  const rec = plan.recommended?.strategyId;
  const prediction = rowPrediction;
  // Why a row has no bar, in the same words as the Plan table (fits / at the edge / …); null when it has one.
  const noBar = (s: (typeof rows)[number]) =>
    !s.fits
      ? verdictWords(s, plan.profile.gpuCount)
      : !hasPrediction(prediction(s)) || !(prediction(s).tflopsPerGpu > 0)
        ? NO_PREDICTION_WHY
        : null;
  return {
    animation: false,
    textStyle: { color: TEXT.text },
    // containLabel: the names and the values are inside the chart's box, whatever its width.
    grid: { left: 8, right: 56, top: 12, bottom: 44, containLabel: true },
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: (p: unknown) => {
        const q = p as { name: string; value: number | null; dataIndex: number };
        const name = escapeHtml(q.name);
        const why = rows[q.dataIndex] ? noBar(rows[q.dataIndex]) : null;
        return q.value == null ? `${name}: ${escapeHtml(why ?? 'does not fit')}` : `${name}: ${q.value} TFLOPS/GPU (predicted)`;
      },
    },
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
        formatter: (name: string, i: number) => {
          const why = rows[i] ? noBar(rows[i]) : null;
          if (why) return `{nofit|${name} — ${why}}`;
          return rows[i]?.id === rec ? `{rec|${name} ★}` : name;
        },
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
          value: noBar(s) ? null : Number(formatFigure(prediction(s).tflopsPerGpu, 1, false)),
          itemStyle: { color: strategyColor(s.id) },
        })),
        label: {
          show: true,
          position: 'right',
          color: TEXT.text,
          formatter: (p: unknown) => {
            const v = (p as { value: number | null }).value;
            return v == null ? '' : String(v);
          },
        },
      },
    ],
  } as EChartsOption;
}

export function memoryOption(plan: PlanResult, TEXT: ChartTheme = LIGHT_THEME): EChartsOption {
  const rows = plan.strategies.map((s) => ({
    label: strategyLabel(s.id),
    color: strategyColor(s.id),
    gpuBytes: plan.profile.gpuCount === 0 ? null : s.memory.gpuBytes, // no GPU: no GPU memory to predict (the table's "—")
    hostBytes: s.memory.hostBytes,
    nvmeBytes: s.memory.nvmeBytes,
  }));
  const p = plan.profile;
  return memoryPanelsOption(
    rows,
    { gpuBytes: p.gpuMemoryBytes || null, hostBytes: p.hostMemoryBytes || null, nvmeBytes: p.nvmeBytes || null },
    TEXT,
    { top: 12 },
  );
}
