// The loss the runner records with every step (samples.loss), as one echarts line over the steps,
// warm-up steps hollow. A step whose loss was NaN/inf is stored as null: it is a gap in the line and
// named in `missing`, never drawn as 0. A run with no loss at all gets no chart, only why.
import type { EChartsOption } from 'echarts';
import { strategyColor } from './labels';
import { stepXAxis } from './step-axis';

export interface LossPoint {
  step: number;
  warmup: boolean;
  loss: number | null;
}

export interface LossCurve {
  /** Null when no step has a finite loss: there is nothing to draw. */
  option: EChartsOption | null;
  /** What is not drawn and why ("no step recorded a loss", "steps 4–6: the loss was NaN or infinite"), or null. */
  missing: string | null;
}

const finite = (v: number | null): v is number => v !== null && Number.isFinite(v);

/** "4", "4–6", "4–6, 9": the steps as ranges. */
export function stepRanges(steps: number[]): string {
  const sorted = [...steps].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j;
  }
  return out.join(', ');
}

export function lossCurve(points: LossPoint[], strategy?: string): LossCurve {
  if (points.length === 0) return { option: null, missing: 'no step has been recorded yet' };
  const bad = points.filter((p) => !finite(p.loss)).map((p) => p.step);
  if (bad.length === points.length)
    return {
      option: null,
      missing: `no step has a loss value (step${bad.length > 1 ? 's' : ''} ${stepRanges(bad)}: NaN/inf, or not reported by the runner)`,
    };
  const color = strategy ? strategyColor(strategy) : undefined;
  const option: EChartsOption = {
    animation: false,
    grid: { left: 16, right: 20, top: 28, bottom: 36, containLabel: true },
    tooltip: { trigger: 'axis' },
    xAxis: stepXAxis(),
    // The loss of a few steps moves by little: the axis fits the values, it does not start at 0.
    yAxis: { type: 'value', name: 'loss', nameGap: 12, scale: true },
    series: [
      {
        type: 'line',
        name: 'loss',
        ...(color ? { itemStyle: { color } } : {}),
        // null leaves a gap (connectNulls off): a non-finite loss is not a point on the curve.
        connectNulls: false,
        data: points.map((p) => ({ value: [p.step, finite(p.loss) ? p.loss : null], symbol: p.warmup ? 'emptyCircle' : 'circle' })),
      },
    ],
  };
  return {
    option,
    missing: bad.length
      ? `step${bad.length > 1 ? 's' : ''} ${stepRanges(bad)}: the loss was NaN or infinite (a gap in the line, not 0)`
      : null,
  };
}
