// The x-axis of a chart over a run's steps (the Run page's per-step chart, the loss curve): whole steps,
// with half a step of room at both ends. Drawn from the first step to the last exactly, the first step
// (a warm-up point, often an arrow) sat on the plot's left edge over the y-axis, and the last on the right.
export function stepXAxis() {
  return {
    type: 'value' as const,
    name: 'step',
    nameLocation: 'middle' as const,
    nameGap: 22,
    minInterval: 1,
    min: (e: { min: number }) => e.min - 0.5,
    max: (e: { max: number }) => e.max + 0.5,
    // the half steps at the ends are not steps: only whole ones are labelled
    axisLabel: { formatter: (v: number) => (Number.isInteger(v) ? String(v) : '') },
    axisTick: { show: false },
  };
}
