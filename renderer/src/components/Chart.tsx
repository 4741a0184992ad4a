// An echarts wrapper: init once per element, setOption on change, follow the element's size,
// dispose on unmount. Options come from pure builders (electron/contract/charts) so the same
// chart renders here and, as SVG, in reports.
import { useEffect, useRef } from 'react';
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';

export interface ChartProps {
  option: EChartsOption;
  height?: number;
  testId?: string;
  /** Called once echarts has finished rendering the current option (for timing and tests). */
  onRendered?: () => void;
  ariaLabel?: string;
}

export function Chart({ option, height = 320, testId, onRendered, ariaLabel }: ChartProps) {
  const element = useRef<HTMLDivElement | null>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    if (!element.current) return;
    const dark = window.matchMedia?.('(prefers-color-scheme: dark)').matches || document.documentElement.dataset.theme === 'dark';
    chart.current = echarts.init(element.current, dark ? 'dark' : undefined, { renderer: 'canvas' });
    const observer = new ResizeObserver(() => chart.current?.resize());
    observer.observe(element.current);
    return () => {
      observer.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    const instance = chart.current;
    if (!instance) return;
    if (onRendered) instance.on('finished', onRendered);
    instance.setOption({ backgroundColor: 'transparent', ...option }, { notMerge: true });
    return () => {
      if (onRendered) instance.off('finished', onRendered);
    };
  }, [option, onRendered]);

  return <div ref={element} className="chart" style={{ height }} data-testid={testId} role="img" aria-label={ariaLabel} />;
}
