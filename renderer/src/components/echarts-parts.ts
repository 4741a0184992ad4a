// The parts of echarts the app's charts use (electron/contract/charts builds only these: bar, line,
// scatter and custom series, grid axes, title, legend, tooltip, markLine/markPoint, graphic), on the
// canvas renderer. Importing from echarts/core with them instead of all of echarts cuts the lazily
// loaded chunk (bench: `npm run build`, dist/renderer/assets/echarts-*.js): a chart option that needs
// another part fails loudly in dev ("… is not registered") — add the part here.
import * as echarts from 'echarts/core';
import { BarChart, CustomChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  GraphicComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([
  BarChart,
  LineChart,
  ScatterChart,
  CustomChart,
  GridComponent,
  TitleComponent,
  LegendComponent,
  TooltipComponent,
  MarkLineComponent,
  MarkPointComponent,
  GraphicComponent,
  CanvasRenderer,
]);

export { echarts };
