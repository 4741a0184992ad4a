// Tune: the closed loop (tune/start) for the workload on the form, on this machine — short trials of
// the most promising configurations through the real runner, refitted after each, until nothing
// untried is predicted to beat the best measured by more than the noise or the budget is spent.
// Every trial is a stored run (tag "tune"); cancel keeps the finished ones. Shown on the Plan page
// and in the wizard's run step: what will be tried and roughly how long before, the winner with
// Compare these / Report after.
import { useState } from 'react';
import type { PlanResult } from '../../../../electron/contract';
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import { Card, ErrorBox } from '../../components/ui';
import { formatDelta, formatNumber } from '../../format';
import { useApp } from '../../stores/app';
import { useCompare } from '../../stores/compare';
import { overrides, usePlan } from '../../stores/plan';
import { useReports } from '../../stores/reports';
import { useTune } from '../../stores/tune';
import { engineStartFigure } from './estimate';
import { usePlanTarget } from './PlannedFor';

/** What tune/start runs by default (the contract's defaults, said in the summary). */
export const TUNE_DEFAULTS = { maxTrials: 6, warmup: 2, steps: 4 };

/** The strategies tune would try, most promising first (tuner/tune.ts tuneCandidates' order), and a rough time. */
export function tuneOutline(
  plan: PlanResult,
  budgetMinutes: number,
  maxTrials: number = TUNE_DEFAULTS.maxTrials,
): { strategies: string[]; trials: number; estimate: string } {
  const fitting = plan.strategies.filter((s) => s.fits);
  const tokens = (s: (typeof fitting)[number]) => s.spec.prediction?.tokensPerSecond ?? 0;
  const ordered = [...fitting].sort(
    (a, b) => tokens(b) - tokens(a) || Number(b.id === plan.recommended?.strategyId) - Number(a.id === plan.recommended?.strategyId),
  );
  const trials = Math.min(maxTrials, ordered.length);
  const stepsPerTrial = TUNE_DEFAULTS.warmup + TUNE_DEFAULTS.steps;
  const tried = ordered.slice(0, trials);
  const predicted = tried.every((s) => (s.spec.prediction?.stepSeconds ?? 0) > 0);
  // Each trial: the engine's start plus its steps; then the winner's seed defaults once more.
  const startup = engineStartFigure(plan.engineStart); // as the Run step's estimate (plan/estimate.ts sweepEstimate)
  const perTrial = tried.map((s) => startup.seconds + stepsPerTrial * (s.spec.prediction?.stepSeconds ?? 0));
  const seconds = perTrial.reduce((a, b) => a + b, 0) + (perTrial.length ? Math.max(...perTrial) : 0);
  const minutes = Math.min(budgetMinutes, Math.max(1, Math.round(seconds / 60)));
  const estimate = `${seconds / 60 > budgetMinutes ? `the whole budget, ${budgetMinutes} min` : `about ${minutes} min`} (${predicted ? '' : 'mostly starting the engine; CPU steps are not predicted here; '}${startup.words})`;
  return { strategies: ordered.map((s) => s.id), trials, estimate };
}

export function TunePanel({ title = 'Tune on this machine', onLeave }: { title?: string; onLeave?: () => void }) {
  const workload = usePlan((s) => s.workload);
  const imported = usePlan((s) => s.imported);
  const plan = usePlan((s) => s.plan);
  const go = useApp((s) => s.go);
  const [budget, setBudget] = useState(20);
  const [maxTrials, setMaxTrials] = useState(TUNE_DEFAULTS.maxTrials);
  const { tuneId, lines, result, error, start: startTune, cancel } = useTune();
  // Tune runs trials on this machine: offered only where the plan shown is for it.
  const target = usePlanTarget();

  const start = () => {
    return startTune({
      // the form's workload as the plan takes it: every declared form option (contract workload-options.ts)
      workload: overrides({ workload, imported }),
      budgetMinutes: budget,
      maxTrials,
    });
  };

  const outline = plan ? tuneOutline(plan, budget, maxTrials) : null;
  const completed = (result?.trials ?? []).filter((t) => t.status === 'completed').map((t) => t.runId);
  const winner = result?.winner;
  return (
    <Card title={title} testId="tune-panel">
      <p className="muted small">
        Runs the most promising configurations as short trials ({TUNE_DEFAULTS.warmup} warm-up + {TUNE_DEFAULTS.steps} steps), refits the
        model from each, and stops when nothing untried is predicted to beat the best by more than 5% — or when the budget is spent. Every
        trial is kept in Runs (tag “tune”).
      </p>
      {/* The workload Tune sends, said before it runs: the form's (the wizard's stored one after a reload). */}
      <p className="small" data-testid="tune-workload">
        Tunes <strong>{workload.model}</strong> at sequence length {workload.seqLen} (the workload of the plan above).
      </p>
      {outline && !tuneId && !result && (
        <p className="small" data-testid="tune-summary">
          {outline.strategies.length === 0
            ? 'Nothing fits this machine for this workload, so there is nothing to tune: lower the sequence length or micro batch, or pick a smaller model.'
            : `Will try ${outline.trials < outline.strategies.length ? `up to ${outline.trials} of ` : ''}${outline.strategies.map((id) => strategyLabel(id)).join(', ')} (most promising first, stopping when nothing left is predicted to win), then the winner's default settings once — ${outline.estimate}.`}
        </p>
      )}
      <div className="button-row">
        <label>
          Budget (minutes){' '}
          <input
            type="number"
            min={1}
            value={budget}
            onChange={(e) => setBudget(Math.max(1, Number(e.target.value) || 1))}
            disabled={!!tuneId}
            data-testid="tune-budget"
          />
        </label>
        <label>
          Trials at most{' '}
          <input
            type="number"
            min={1}
            max={50}
            value={maxTrials}
            onChange={(e) => setMaxTrials(Math.min(50, Math.max(1, Math.round(Number(e.target.value)) || 1)))}
            disabled={!!tuneId}
            data-testid="tune-max-trials"
          />
        </label>
        {tuneId ? (
          <button type="button" className="secondary" onClick={() => void cancel()} data-testid="tune-cancel">
            Cancel (keep finished trials)
          </button>
        ) : (
          <button
            type="button"
            onClick={() => void start()}
            disabled={outline?.strategies.length === 0 || !!target?.reason}
            title={target?.reason ?? undefined}
            data-testid="tune-start"
          >
            Tune
          </button>
        )}
      </div>
      {!tuneId && target?.reason && (
        <p className="warn-text small" role="note" data-testid="tune-blocked">
          {target.reason}
        </p>
      )}
      {error && <ErrorBox message={error} />}
      {lines.length > 0 && (
        <pre
          className="log small"
          data-testid="tune-log"
          data-tune-state={tuneId ? 'running' : 'done'}
          style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
        >
          {lines.join('\n')}
        </pre>
      )}
      {result && (
        <div data-testid="tune-result">
          {winner ? (
            <p className="headline">
              <strong>{strategyLabel(winner.strategyId)}</strong> won: {formatNumber(winner.tflopsPerGpu)} TFLOPS/GPU,{' '}
              {formatNumber(winner.stepSeconds, 3)} s/step measured in {result.trials.filter((t) => !t.baseline).length} trial(s)
              {result.seedDefaults?.runId === winner.runId
                ? ' — its default settings were already the fastest tried'
                : result.seedDefaults?.tflopsPerGpu
                  ? ` — its default settings ${formatNumber(result.seedDefaults.tflopsPerGpu)}${result.gain != null ? ` (${formatDelta(result.gain * 100, 0)} gained)` : ''}`
                  : result.seedDefaultsNote
                    ? ` — its default settings: ${result.seedDefaultsNote}`
                    : ''}
              .
            </p>
          ) : (
            <p>No trial completed: see the lines above for what happened.</p>
          )}
          <p className="muted small">Stopped: {result.stopReason}.</p>
          <div className="button-row">
            <button
              type="button"
              disabled={completed.length === 0}
              onClick={() => {
                onLeave?.();
                useCompare.getState().open(completed);
                go('compare');
              }}
              data-testid="tune-compare"
            >
              Compare these
            </button>
            <button
              type="button"
              className="secondary"
              disabled={completed.length === 0}
              onClick={() => {
                onLeave?.();
                useReports.getState().setSelected(completed);
                go('reports');
              }}
              data-testid="tune-report"
            >
              Report
            </button>
          </div>
        </div>
      )}
    </Card>
  );
}
