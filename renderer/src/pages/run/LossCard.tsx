// The loss curve of one run (the loss the runner records with each step), under the step timeline.
// A run without a loss value says so instead of drawing zeros (contract/charts/loss-curve.ts). Given
// a run id, a run still running grows with its progress events (the stored steps were read when the
// page opened; a step is kept once, by its number).
import { useEffect, useMemo, useState } from 'react';
import { lossCurve, type LossPoint } from '../../../../electron/contract/charts/loss-curve';
import { Chart } from '../../components/Chart';
import { Card } from '../../components/ui';
import { api } from '../../api/client';

export function LossCard({
  points,
  strategy,
  runId,
  title = 'Loss per step (hollow: warm-up)',
}: {
  points: LossPoint[];
  strategy?: string;
  runId?: string;
  title?: string;
}) {
  const [later, setLater] = useState<LossPoint[]>([]);
  useEffect(() => {
    setLater([]);
    if (!runId) return;
    return api.on('runs/progress', (e) => e.runId === runId && setLater((xs) => [...xs, { step: e.step, warmup: e.warmup, loss: e.loss }]));
  }, [runId]);
  const shown = useMemo(() => {
    if (!later.length) return points;
    const byStep = new Map(points.map((p) => [p.step, p]));
    for (const p of later) if (!byStep.has(p.step)) byStep.set(p.step, p);
    return [...byStep.values()].sort((a, b) => a.step - b.step);
  }, [points, later]);
  const curve = useMemo(() => lossCurve(shown, strategy), [shown, strategy]);
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
