// echarts renders a tooltip formatter's string as HTML, and strategy names come from
// runs (an imported run's are whatever its file said). Every builder's formatter must give a name
// like `<div style="position:fixed;inset:0">` back as text, keeping only its own markup.
import { describe, expect, it } from 'vitest';
import {
  memoryPanelsOption,
  memoryOption,
  memoryPerResourceOption,
  predictedOption,
  predictedTflopsOption,
  repeatBarsOption,
  runStepsOption,
  type PlanResult,
} from '../../../electron/contract';
import { storeWith } from '../history-queries/helpers';

const EVIL = '<div style="position:fixed;inset:0">x</div>';
const ESCAPED = '&lt;div style=&quot;position:fixed;inset:0&quot;&gt;x&lt;/div&gt;';

type Formatter = (p: unknown) => string;
interface Series {
  type: string;
  data: unknown[];
  tooltip?: { formatter?: Formatter };
}
const seriesOf = (option: unknown) => (option as { series: Series[] }).series;
const tooltipOf = (option: unknown) => (option as { tooltip: { formatter: Formatter } }).tooltip.formatter;

/** No markup of the name's own survives: its text is there, escaped. */
function expectEscaped(html: string) {
  expect(html).toContain(ESCAPED);
  expect(html).not.toContain('<div');
  expect(html).not.toContain('style="position');
}

const comparison = () => {
  const store = storeWith([
    { id: 'e1', strategy: EVIL, tflops: 100, predicted: 110 },
    { id: 'z1', strategy: 'zero3-offload', tflops: 120, predicted: 115 },
  ]);
  const c = store.compare(['e1', 'z1']);
  store.close();
  return c;
};

const hostilePlan = {
  strategies: [
    {
      id: EVIL,
      fits: true,
      predicted: { tflopsPerGpu: 100 },
      spec: null,
      memory: { gpuBytes: 2 ** 34, hostBytes: 2 ** 36, nvmeBytes: null },
    },
  ],
  recommended: null,
  profile: { gpuMemoryBytes: 2 ** 37, hostMemoryBytes: 2 ** 38, nvmeBytes: 0 },
} as unknown as PlanResult;

describe('chart tooltips escape data-derived names', () => {
  it('predicted vs measured: the run name from an imported strategy is text', () => {
    const c = comparison();
    const scatter = seriesOf(predictedOption(c))[0];
    const point = (scatter.data as { name: string; value: number[] }[]).find((d) => d.name.includes('position:fixed'))!;
    expect(point).toBeDefined();
    const html = scatter.tooltip!.formatter!({ name: point.name, value: point.value });
    expectEscaped(html);
    expect(html).toContain('<br/>predicted 110');
  });

  it('memory panels (Compare and Plan): the strategy name is text', () => {
    const c = comparison();
    for (const option of [
      memoryPerResourceOption(c),
      memoryPanelsOption(
        [{ label: EVIL, color: '#000', gpuBytes: 2 ** 34, hostBytes: null, nvmeBytes: null }],
        { gpuBytes: null, hostBytes: null, nvmeBytes: null },
        { text: '#000', muted: '#666', grid: '#ccc' },
      ),
      memoryOption(hostilePlan),
    ]) {
      const categories = (option as { yAxis: { data: string[] }[] }).yAxis[0].data;
      const name = categories.find((n) => n.includes('position:fixed'))!;
      for (const s of seriesOf(option)) expectEscaped(s.tooltip!.formatter!({ name, value: 16 }));
    }
  });

  it("the Plan page's predicted TFLOPS: the strategy name is text, fitting or not", () => {
    const format = tooltipOf(predictedTflopsOption(hostilePlan));
    expectEscaped(format({ name: EVIL, value: 100 }));
    expectEscaped(format({ name: EVIL, value: null }));
  });

  it("a run's step chart: series names are text, echarts' own marker stays markup", () => {
    const format = tooltipOf(runStepsOption([{ step: 1, warmup: false, stepSeconds: 2, tflopsPerGpu: 100 }] as never, EVIL));
    const marker = '<span style="background-color:#2563eb;"></span>';
    const html = format([{ marker, seriesName: EVIL, value: [1, 2] }]);
    expectEscaped(html);
    expect(html).toContain(marker);
  });

  it("the repeat bars' whisker: only numbers and the unit, escaped", () => {
    const c = comparison();
    const custom = seriesOf(repeatBarsOption(c)).find((s) => s.type === 'custom')!;
    expect(custom.tooltip!.formatter!({ value: [0, 100, 120] })).toBe('min 100 · max 120 TFLOPS');
  });
});
