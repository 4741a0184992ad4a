// The loss curve of one run (the loss the runner records with each step), under the step timeline.
// A run without a loss value says so instead of drawing zeros (contract/charts/loss-curve.ts).
import { useMemo } from 'react';
import { lossCurve, type LossPoint } from '../../../../electron/contract/charts/loss-curve';
import { Chart } from '../../components/Chart';
import { Card } from '../../components/ui';

export function LossCard({ points, strategy, title = 'Loss per step (hollow: warm-up)' }: { points: LossPoint[]; strategy?: string; title?: string }) {
  const curve = useMemo(() => lossCurve(points, strategy), [points, strategy]);
  return (
    <Card title={title} testId="run-loss">
      {curve.option && <Chart option={curve.option} height={220} testId="chart-run-loss" ariaLabel="Training loss per step" />}
      {curve.missing && (
        <p className="muted small" data-testid="run-loss-missing">
          {curve.option ? 'Not drawn: ' : 'Loss not available: '}
          {curve.missing}
        </p>
      )}
    </Card>
  );
}
