// An echarts wrapper: init once per element, setOption on change, follow the element's size,
// dispose on unmount. Options come from pure builders (electron/contract/charts) so the same
// chart renders here and, as SVG, in reports.
// echarts (the parts used: echarts-parts.ts) is loaded on the first chart, not with the app: the first page is interactive
// sooner, and pages without charts never pay for it.
import { useEffect, useRef, useState } from 'react';
import type { ECharts, EChartsOption } from 'echarts';
import { isDarkTheme } from '../theme';

export interface ChartProps {
  option: EChartsOption;
  height?: number;
  testId?: string;
  /** Called once echarts has finished rendering the current option (for timing and tests). */
  onRendered?: () => void;
  ariaLabel?: string;
}

type EchartsCore = (typeof import('./echarts-parts'))['echarts'];
let echartsModule: Promise<EchartsCore> | null = null;
/** echarts/core with the parts the charts use (echarts-parts.ts), loaded once on the first chart. */
export function loadEcharts(): Promise<EchartsCore> {
  return (echartsModule ??= import('./echarts-parts').then((m) => m.echarts));
}

export function Chart({ option, height = 320, testId, onRendered, ariaLabel }: ChartProps) {
  const element = useRef<HTMLDivElement | null>(null);
  const [chart, setChart] = useState<ECharts | null>(null);

  useEffect(() => {
    let disposed = false;
    let instance: ECharts | null = null;
    let observer: ResizeObserver | null = null;
    void loadEcharts().then((echarts) => {
      if (disposed || !element.current) return;
      instance = echarts.init(element.current, isDarkTheme() ? 'dark' : undefined, { renderer: 'canvas' });
      observer = new ResizeObserver(() => instance?.resize());
      observer.observe(element.current);
      setChart(instance);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      instance?.dispose();
    };
  }, []);

  useEffect(() => {
    if (!chart) return;
    if (onRendered) chart.on('finished', onRendered);
    chart.setOption({ backgroundColor: 'transparent', ...option }, { notMerge: true });
    // The instance on its element, put there once it holds an option (not at init, where getOption() is still
    // undefined): e2e tests read echarts' own option and label layout from it, and wait for it to appear.
    if (element.current) (element.current as HTMLDivElement & { __echarts?: ECharts }).__echarts = chart;
    return () => {
      if (onRendered) chart.off('finished', onRendered);
    };
  }, [chart, option, onRendered]);

  return <div ref={element} className="chart" style={{ height }} data-testid={testId} role="img" aria-label={ariaLabel} />;
}
