// The tuner's pick and its runner-up, in words.
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import { PlannedFor } from './PlannedFor';
import { Card } from '../../components/ui';
import { formatNumber } from '../../format';
import { usePlan } from '../../stores/plan';

export function Recommendation() {
  const plan = usePlan((s) => s.plan);
  if (!plan) return null;
  const rec = plan.recommended;
  return (
    <Card title="Recommendation" testId="recommendation">
      {/* Which machine the plan is for, first (and, for another one, the way back to this one). */}
      <PlannedFor />
      {rec ? (
        <>
          <p className="headline">
            <strong>{strategyLabel(rec.strategyId)}</strong> at micro batch {rec.microBatch}
            {rec.cpuadamCoresPerc !== null
              ? `, ${Math.round(rec.cpuadamCoresPerc * 100)} % of the CPU cores on the optimizer step`
              : ''} — {/* No prediction (a CPU smoke run): the reason below says what the run is for; said once, there. */}
            {rec.predicted.stepSeconds > 0
              ? `predicted ${formatNumber(rec.predicted.tflopsPerGpu)} TFLOPS/GPU, ${formatNumber(rec.predicted.stepSeconds, 2)} s/step.`
              : 'no GPU prediction.'}
          </p>
          <p>{rec.reason}</p>
          {rec.knobReasons?.length ? (
            <ul className="knob-reasons" data-testid="knob-reasons">
              {rec.knobReasons.map((k) => (
                <li key={k}>{k}</li>
              ))}
            </ul>
          ) : null}
          {rec.runnerUp && (
            <p className="muted">
              Runner-up: {strategyLabel(rec.runnerUp.strategyId)} — {rec.runnerUp.reason}
            </p>
          )}
          {/* A much faster configuration just inside the model's memory error: named, not recommended unmeasured. */}
          {rec.edgeTrial && (
            <p data-testid="edge-trial">
              <strong>Fastest: one trial to confirm:</strong> {strategyLabel(rec.edgeTrial.strategyId)} at micro batch{' '}
              {rec.edgeTrial.microBatch} — {rec.edgeTrial.reason}. Use Tune below: it runs this first.
            </p>
          )}
        </>
      ) : (
        <p>Nothing fits this machine for this workload. Lower the sequence length or micro batch, add GPUs, or pick a smaller model.</p>
      )}
      {plan.strategies[0]?.predicted.formula && <p className="muted small">{plan.strategies[0].predicted.formula}</p>}
      {/* How the figures were made (sources, calibration): there for whoever checks, folded so the card reads plainly. */}
      {plan.notes.length > 0 && (
        <details className="muted small plan-notes">
          <summary>How these figures were computed</summary>
          {plan.notes.map((n) => (
            <p key={n}>{n}</p>
          ))}
        </details>
      )}
    </Card>
  );
}
