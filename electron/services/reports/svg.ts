// ECharts options → SVG text, on the server side (no DOM, no browser): the report shows the
// same option objects the renderer draws live, as static vector images.
import * as echarts from 'echarts';

export function renderSvg(option: Record<string, unknown>, width = 860, height = 360): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    // Animation off: SSR renders one frame, which must be the final one.
    chart.setOption({ ...option, animation: false });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
