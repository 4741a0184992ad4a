// Charts laid out by echarts itself (server-side, the same builders the app draws), every rendered
// text box checked to sit inside the chart without overlapping another: the CPU Adam curve (top
// label, x from the first thread count), the step lines with 10 runs (a plain legend that wraps
// instead of paging "1/4", the x-axis from the first measured step).
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendLiveSample,
  cpuAdamCurveOption,
  resourceLanesOption,
  stepLinesOption,
  type Comparison,
  type LiveRecord,
} from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { tmpDir } from '../history-queries/helpers';

interface Box {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  parent: unknown;
}

/** Lays the option out with echarts (SSR) and returns every drawn text box, in chart pixels. */
function layout(option: EChartsOption, width: number, height: number): { boxes: Box[]; chart: echarts.ECharts } {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  chart.setOption(option);
  type Displayable = {
    type: string;
    parent?: unknown;
    invisible?: boolean;
    style?: { text?: string; opacity?: number };
    getBoundingRect(): { clone(): { x: number; y: number; width: number; height: number; applyTransform(m: unknown): void } };
    getComputedTransform(): unknown;
  };
  const list = (chart as unknown as { getZr(): { storage: { getDisplayList(update: boolean): Displayable[] } } })
    .getZr()
    .storage.getDisplayList(true);
  const boxes = list
    .filter((e) => (e.type === 'tspan' || e.type === 'text') && e.style?.text && !e.invisible && e.style.opacity !== 0)
    .map((e) => {
      const r = e.getBoundingRect().clone();
      const m = e.getComputedTransform();
      if (m) r.applyTransform(m);
      return { text: String(e.style!.text), x: r.x, y: r.y, w: r.width, h: r.height, parent: e.parent };
    });
  return { boxes, chart };
}

/** Text leaving the chart, cut with an ellipsis, or overlapping another label. */
function labelProblems(boxes: Box[], width: number, height: number): string[] {
  const problems: string[] = [];
  for (const t of boxes) {
    if (t.x < -1 || t.y < -1 || t.x + t.w > width + 1 || t.y + t.h > height + 1)
      problems.push(`"${t.text}" leaves the chart (${t.x.toFixed(0)},${t.y.toFixed(0)} ${t.w.toFixed(0)}×${t.h.toFixed(0)})`);
    if (t.text.endsWith('…')) problems.push(`"${t.text}" is cut`);
  }
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a.parent && a.parent === b.parent) continue;
      const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (ox > 2 && oy > 2) problems.push(`"${a.text}" overlaps "${b.text}"`);
    }
  return problems;
}

describe('the measure chart (CPU Adam by thread count)', () => {
  // The 2-core CI machine and a 64-core host: the knee's label sits at the top of the curve.
  for (const threads of [
    [1, 2],
    [1, 2, 4, 8, 16, 24, 32, 48, 64],
  ]) {
    it(`keeps its top label inside the chart and its first point off the y-axis (${threads.length} points)`, () => {
      const m = {
        cpuAdam: threads.map((t) => ({ threads: t, paramsPerSecond: Math.min(t, 32) * 0.3e9 })),
        recommendedThreads: threads[threads.length - 1],
      } as never;
      for (const width of [480, 900]) {
        const { boxes, chart } = layout(cpuAdamCurveOption(m), width, 240);
        expect(labelProblems(boxes, width, 240), `${width} px`).toEqual([]);
        // The knee's value label (the recommended thread count) is drawn, at the top, inside.
        const top = Math.min(...boxes.map((b) => b.y));
        expect(top).toBeGreaterThanOrEqual(0);
        const xAxis = (
          chart as unknown as { getModel(): { getComponent(t: string, i: number): { axis: { scale: { getExtent(): [number, number] } } } } }
        )
          .getModel()
          .getComponent('xAxis', 0);
        // The first point (the recommended dot, on a 2-core machine) stands clear of the y-axis, more than
        // the dot's radius (5 px) from it, and the axis does not start below 0 threads.
        const start = xAxis.axis.scale.getExtent()[0];
        expect(start).toBeGreaterThanOrEqual(0);
        const [axisX] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [start, 0]) as number[];
        const [dotX] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [threads[0], 0]) as number[];
        expect(dotX - axisX, `${width} px`).toBeGreaterThan(5);
        chart.dispose();
      }
    });
  }
});

describe("the measure chart's recommended label beside the curve", () => {
  // This 2-core VM's Setup measurement: 1.85 then 3.49 G params/s, the recommendation 1 thread (0.5 of 2
  // cores); and a 64-core curve with its knee mid-way, then at its last point. The label once lay on the line.
  for (const [name, points, knee] of [
    [
      '2-core, knee at the first point',
      [
        [1, 1.85],
        [2, 3.49],
      ],
      1,
    ],
    [
      '64-core, knee mid-way',
      [
        [1, 0.4],
        [2, 0.8],
        [4, 1.6],
        [8, 3],
        [16, 4.6],
        [32, 4.9],
        [64, 5],
      ],
      16,
    ],
    [
      '64-core, knee at the last point',
      [
        [1, 0.4],
        [8, 3],
        [64, 5],
      ],
      64,
    ],
  ] as [string, [number, number][], number][])
    it(`does not cross the line (${name})`, () => {
      const m = { cpuAdam: points.map(([threads, g]) => ({ threads, paramsPerSecond: g * 1e9 })), recommendedThreads: knee } as never;
      for (const width of [480, 900]) {
        const { boxes, chart } = layout(cpuAdamCurveOption(m), width, 240);
        const label = boxes.find((b) => b.text.includes('recommended'))!;
        expect(label, `${width} px`).toBeDefined();
        const px = points.map((p) => chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, p) as number[]);
        // the line's height at each pixel across the label: never inside the label's box
        for (let x = label.x; x <= label.x + label.w; x += 1) {
          const i = px.findIndex((p, k) => k + 1 < px.length && p[0] <= x && px[k + 1][0] >= x);
          if (i < 0) continue;
          const [a, b] = [px[i], px[i + 1]];
          const y = a[1] + ((b[1] - a[1]) * (x - a[0])) / (b[0] - a[0] || 1);
          expect(y > label.y + 1 && y < label.y + label.h - 1, `${width} px: the line at x=${x.toFixed(0)} crosses "${label.text}"`).toBe(
            false,
          );
        }
        expect(labelProblems(boxes, width, 240), `${width} px`).toEqual([]);
        chart.dispose();
      }
    });
});

describe('step lines with 10 runs (Compare)', () => {
  let backend: Backend;
  let c: Comparison;
  beforeAll(async () => {
    backend = createBackend({ dataDir: tmpDir(), transport: 'cli' });
    await backend.invoke('samples/load', {});
    const { runs } = await backend.invoke('runs/list', { tag: 'sample', status: 'completed' });
    const ids = runs.slice(0, 10).map((r) => r.id);
    expect(ids).toHaveLength(10);
    c = await backend.invoke('compare/runs', { ids });
  });
  afterAll(async () => backend?.close());

  it('wraps a plain legend (no "1/4" pager) with every run named, labels inside and apart, x from the first measured step', () => {
    for (const which of ['stepSeconds', 'tflopsPerGpu'] as const) {
      // The chart as the Compare page draws it (a half-width card at 1280, ~520 px, and at 1920)
      // and as the report draws it (860 px, its legend's rows estimated at that width).
      for (const [width, legendWidth] of [
        [520, 520],
        [800, 520],
        [860, 860],
      ]) {
        const option = stepLinesOption(c, which, undefined, legendWidth) as { legend: { type: string }; grid: { bottom: number } };
        expect(option.legend.type).toBe('plain');
        const height = 320 + option.grid.bottom;
        const { boxes, chart } = layout(option as EChartsOption, width, height);
        expect(labelProblems(boxes, width, height), `${which} at ${width} px`).toEqual([]);
        const texts = boxes.map((b) => b.text);
        expect(
          texts.some((t) => /^\d+\/\d+$/.test(t)),
          'a legend pager',
        ).toBe(false);
        for (const s of c.series) expect(texts, `legend names ${s.label}`).toContain(s.label);
        const firstStep = Math.min(...c.series.flatMap((s) => s.steps));
        expect(firstStep).toBeGreaterThan(0); // warm-up steps are not drawn: the data starts later than 0
        const xAxis = (
          chart as unknown as { getModel(): { getComponent(t: string, i: number): { axis: { scale: { getExtent(): [number, number] } } } } }
        )
          .getModel()
          .getComponent('xAxis', 0);
        expect(xAxis.axis.scale.getExtent()[0]).toBe(firstStep);
        chart.dispose();
      }
    }
  });
});

describe('the resource lanes (Run page, run page, report)', () => {
  it('says the time unit on its labels, not as an axis name against the last one ("17.55 s")', () => {
    const off = { available: false, reason: 'no NVIDIA GPU on this machine' };
    const on = { available: true, reason: null };
    let live: LiveRecord | null = null;
    for (let i = 0; i <= 13; i++)
      live = appendLiveSample(
        live,
        {
          sweepId: 's',
          runId: 'r',
          availability: { gpu: off, pcie: off, nvlink: off, cpu: on, memory: on, disk: on },
          sample: {
            t: i * 1350,
            gpus: [],
            cpuBusyPct: [100, 40],
            memUsedBytes: 4e9,
            memTotalBytes: 16e9,
            swapUsedBytes: 0,
            diskReadBps: 0,
            diskWriteBps: 0,
          },
        },
        1e6 + i * 1350,
      );
    for (const width of [520, 1200]) {
      const { boxes, chart } = layout(resourceLanesOption(live!.record), width, 360);
      expect(labelProblems(boxes, width, 360), `${width} px`).toEqual([]);
      // What is drawn under the last lane (it ends at 92 % of the height; its y-axis "0" reaches a little below): the time axis' labels and any name.
      const times = boxes.filter((b) => b.y > 0.93 * 360).map((b) => b.text);
      expect(times, `${width} px`).toContain('17.55 s');
      expect(
        times.filter((t) => !t.endsWith(' s')),
        `${width} px: a time label without its unit, or the unit alone`,
      ).toEqual([]);
      chart.dispose();
    }
  });
});
