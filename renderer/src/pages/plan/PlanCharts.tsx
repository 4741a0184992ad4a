// The plan's two charts: predicted TFLOPS per GPU and memory per resource, each row a strategy.
import { useMemo } from 'react';
import { memoryOption, planChartHeight, predictedTflopsOption } from '../../../../electron/contract/charts/plan-charts';
import { DARK_THEME, LIGHT_THEME } from '../../../../electron/contract/charts/compare-charts';
import { isDarkTheme } from '../../theme';
import { Chart } from '../../components/Chart';
import { Card } from '../../components/ui';
import { usePlan } from '../../stores/plan';

export function PlanCharts() {
  const plan = usePlan((s) => s.plan);
  // The page's theme (light, dark, or the system's): the one reading in renderer/src/theme.ts.
  const theme = isDarkTheme() ? DARK_THEME : LIGHT_THEME;
  const tflops = useMemo(() => (plan ? predictedTflopsOption(plan, theme) : null), [plan, theme]);
  const memory = useMemo(() => (plan ? memoryOption(plan, theme) : null), [plan, theme]);
  if (!plan || !tflops || !memory) return null;
  const height = planChartHeight(plan.strategies.length);
  return (
    <div className="plan-charts">
      <Card title="Predicted model TFLOPS per GPU">
        <Chart option={tflops} height={height} testId="chart-predicted-tflops" ariaLabel="Predicted TFLOPS per strategy" />
      </Card>
      <Card title="Memory per resource">
        <Chart
          option={memory}
          height={height + 14}
          testId="chart-memory"
          ariaLabel="Memory per strategy and resource, each against its capacity"
        />
      </Card>
    </div>
  );
}
