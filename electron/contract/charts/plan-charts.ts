// Chart options for the Plan page (pure; type imports only): predicted TFLOPS per GPU per
// strategy, and memory per resource against the machine's capacity.
import type { EChartsOption } from 'echarts';
import type { PlanResult } from '../plan';

const GiB = 2 ** 30;

export function predictedTflopsOption(plan: PlanResult): EChartsOption {
  const rows = plan.strategies;
  return {
    animation: false,
    grid: { left: 150, right: 40, top: 30, bottom: 30 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'value', name: 'predicted model TFLOPS / GPU', nameLocation: 'middle', nameGap: 22 },
    yAxis: { type: 'category', data: rows.map((s) => s.label), inverse: true },
    series: [
      {
        type: 'bar',
        name: 'TFLOPS / GPU',
        data: rows.map((s) => ({
          value: Number(s.predicted.tflopsPerGpu.toFixed(1)),
          itemStyle: { color: !s.fits ? '#9ca3af' : s.id === plan.recommended?.strategyId ? '#16a34a' : '#2563eb' },
        })),
        label: { show: true, position: 'right', formatter: (p: unknown) => {
          const index = (p as { dataIndex: number }).dataIndex;
          return rows[index].fits ? String((p as { value: number }).value) : 'does not fit';
        } },
      },
    ],
  };
}

export function memoryOption(plan: PlanResult): EChartsOption {
  const rows = plan.strategies;
  const gpuCap = plan.profile.gpuMemoryBytes / GiB;
  const hostCap = plan.profile.hostMemoryBytes / GiB;
  return {
    animation: false,
    legend: { top: 0 },
    grid: { left: 150, right: 40, top: 40, bottom: 30 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: unknown) => `${Number(v).toFixed(1)} GiB` },
    xAxis: { type: 'value', name: 'GiB', nameLocation: 'middle', nameGap: 22 },
    yAxis: { type: 'category', data: rows.map((s) => s.label), inverse: true },
    series: [
      {
        type: 'bar',
        name: 'GPU (per GPU)',
        data: rows.map((s) => Number((s.memory.gpuBytes / GiB).toFixed(2))),
        markLine: gpuCap > 0 ? { symbol: 'none', data: [{ xAxis: gpuCap, name: 'GPU capacity' }], label: { formatter: 'GPU cap' }, lineStyle: { color: '#16a34a' } } : undefined,
      },
      {
        type: 'bar',
        name: 'Host (per node)',
        data: rows.map((s) => Number((s.memory.hostBytes / GiB).toFixed(2))),
        markLine: hostCap > 0 ? { symbol: 'none', data: [{ xAxis: hostCap, name: 'host capacity' }], label: { formatter: 'host cap' }, lineStyle: { color: '#b45309' } } : undefined,
      },
      { type: 'bar', name: 'NVMe (per node)', data: rows.map((s) => Number((s.memory.nvmeBytes / GiB).toFixed(2))) },
    ],
  };
}
