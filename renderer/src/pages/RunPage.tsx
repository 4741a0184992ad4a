// Run: the sweep in flight — per-run status, overall progress, live TFLOPS and memory per step,
// the engine's log, and cancel. Failures are shown with their class, what happened and the fix.
import { useEffect, useMemo, useState } from 'react';
import { api } from '../api/client';
import { legendTop, liveMemoryOption, liveTflopsOption, type LiveSeriesInput } from '../../../electron/contract/charts/live-charts';
import { STEP_STATISTIC, strategyLabel } from '../../../electron/contract/charts/labels';
import { median } from '../../../electron/contract/median';
import { Chart } from '../components/Chart';
import { ProgressBar } from '../components/Progress';
import { Card, EmptyState, ErrorBox, PageHeader } from '../components/ui';
import { formatNumber } from '../format';
import { runHref, useApp } from '../stores/app';
import { useEngine } from '../stores/engine';
import { useCompare } from '../stores/compare';
import { useReports } from '../stores/reports';
import { sweepProgress } from './run/progress';
import { LiveResourcesCard } from './run/LiveResourcesCard';
import { LastSweep } from './run/LastSweep';

/** The median of the measured (not warm-up) steps: the one step statistic of every page. */
export function medianOfMeasured(samples: { warmup: boolean }[], pick: (s: never) => number | null): number | null {
  return median(samples.filter((s) => !s.warmup).map((s) => pick(s as never)));
}

/** compare/runs takes at most this many runs (RunsPage says the same). */
const COMPARE_MAX_RUNS = 64;

/**
 * The sweep's result in Compare's words: one rule everywhere (per-strategy medians of the repeats,
 * a tie when the difference is inside their spread; this page once ranked single best
 * repeats and named another winner than Compare, the report and the CLI for the same runs).
 */
function SweepHeadline({ runIds }: { runIds: string[] }) {
  const key = runIds.join(',');
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setText(null);
    api
      .invoke('compare/runs', { ids: runIds.slice(0, COMPARE_MAX_RUNS) })
      .then((c) => {
        if (!live) return;
        const only = c.groups.length === 1 ? c.groups[0] : null;
        const median = (id: 'tflopsPerGpu' | 'stepSeconds') => only?.stats[id]?.median ?? null;
        setText(
          c.headline ??
            (only
              ? `${only.label}: ${formatNumber(median('tflopsPerGpu'), 1)} TFLOPS/GPU, ${formatNumber(median('stepSeconds'), 3)} s/step (${STEP_STATISTIC}) — one strategy, nothing to rank it against`
              : 'The completed runs have no common figure to rank them by.'),
        );
      })
      .catch((e: unknown) => live && setText(`Could not rank the runs: ${e instanceof Error ? e.message : String(e)}`));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- key is runIds joined: a new array with the same ids must not refetch
  }, [key]);
  return (
    <p className="headline" data-testid="sweep-headline">
      {text ?? 'Ranking the runs…'}
    </p>
  );
}

export function RunPage() {
  const { sweepId, runIds, runs, log, cancel, cancelling, done, error, startedAt } = useEngine();
  const go = useApp((s) => s.go);
  const series: LiveSeriesInput[] = useMemo(
    () =>
      runIds
        .map((id) => runs[id])
        .filter((r) => r && r.samples.length)
        .map((r) => ({ name: `${strategyLabel(r.strategy)} #${r.repeatIndex + 1}`, strategy: r.strategy, points: r.samples })),
    [runIds, runs],
  );
  const tflops = useMemo(() => liveTflopsOption(series), [series]);
  const memory = useMemo(() => liveMemoryOption(series), [series]);

  if (!sweepId)
    return (
      <div className="page">
        <PageHeader title="Run" />
        <EmptyState title="Nothing is running">
          <LastSweep />
          <p>Plan a workload and start a sweep of the strategies you want to compare.</p>
          <button type="button" onClick={() => go('plan')}>
            Go to Plan
          </button>
        </EmptyState>
      </div>
    );

  const completed = runIds.filter((id) => runs[id]?.status === 'completed');
  const progress = sweepProgress(runIds, runs, done);

  return (
    <div className="page" data-testid="run-page" data-sweep-state={done ? 'done' : 'running'}>
      <PageHeader
        title="Run"
        subtitle={`Sweep ${sweepId} — ${runIds.length} run(s)`}
        actions={
          done ? (
            <button type="button" onClick={() => go('runs')}>
              See in Runs
            </button>
          ) : (
            <button type="button" className="danger" onClick={() => void cancel()} disabled={cancelling} data-testid="cancel-sweep">
              {cancelling ? 'Cancelling…' : 'Cancel sweep'}
            </button>
          )
        }
      />
      {error && <ErrorBox message={error} />}
      {done && (
        <Card title="Result" testId="sweep-result">
          {completed.length ? <SweepHeadline runIds={completed} /> : <p>No run completed: see what happened below.</p>}
          <div className="button-row">
            <button
              type="button"
              disabled={completed.length === 0}
              onClick={() => (useCompare.getState().open(completed), go('compare'))}
              data-testid="sweep-compare"
            >
              Compare these
            </button>
            <button
              type="button"
              className="secondary"
              disabled={completed.length === 0}
              onClick={() => (useReports.getState().setSelected(completed), go('reports'))}
            >
              Report
            </button>
          </div>
        </Card>
      )}
      <Card>
        <ProgressBar
          testId="sweep-progress"
          fraction={progress.fraction}
          startedAt={done ? null : startedAt}
          etaSeconds={done ? null : progress.etaSeconds}
          label={progress.label}
        />
        <table className="table" data-testid="sweep-runs">
          <thead>
            <tr>
              <th>Strategy</th>
              <th>Repeat</th>
              <th>Status</th>
              <th title={`Step time, ${STEP_STATISTIC}`}>Step s (median)</th>
              <th title={`Model TFLOPS per GPU, ${STEP_STATISTIC}`}>TFLOPS / GPU (median)</th>
              <th>What happened</th>
            </tr>
          </thead>
          <tbody>
            {runIds.map((id) => {
              const r = runs[id];
              const stepMedian = medianOfMeasured(r.samples, (s: { stepSeconds: number }) => s.stepSeconds);
              const tflopsMedian = medianOfMeasured(r.samples, (s: { tflopsPerGpu: number | null }) => s.tflopsPerGpu);
              return (
                <tr
                  key={id}
                  data-testid="sweep-run"
                  data-run-id={id}
                  data-strategy={r.strategy}
                  data-repeat={r.repeatIndex}
                  data-status={r.status}
                >
                  <td>
                    <a href={runHref(id)}>{strategyLabel(r.strategy)}</a>
                  </td>
                  <td>{r.repeatIndex + 1}</td>
                  <td>
                    <span className={`badge badge-${r.status}`}>{r.status}</span>
                  </td>
                  <td>{formatNumber(stepMedian, 3)}</td>
                  <td>{formatNumber(tflopsMedian, 1)}</td>
                  <td className="small">
                    {r.errorClass && <strong>{r.errorClass}: </strong>}
                    {r.message}
                    {r.fix && <div className="muted">Fix: {r.fix}</div>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <p className="muted small">
          Step time and TFLOPS are the {STEP_STATISTIC} (warm-up steps not counted), as on the Runs, Compare and report pages.
        </p>
      </Card>
      <div className="grid" style={{ marginTop: 16 }}>
        <Card title="TFLOPS per GPU, per step (hollow = warm-up)">
          <Chart option={tflops} height={230 + legendTop(series.map((r) => r.name))} testId="chart-live-tflops" />
        </Card>
        <Card title="Memory per step">
          <Chart
            option={memory}
            height={230 + legendTop(series.flatMap((r) => [`${r.name} · GPU peak`, `${r.name} · host RSS`]))}
            testId="chart-live-memory"
          />
        </Card>
      </div>
      <LiveResourcesCard />
      <Card title="Engine log (stderr)">
        <pre className="code log" data-testid="run-log">
          {log.length ? log.slice(-400).join('\n') : 'No output yet.'}
        </pre>
      </Card>
    </div>
  );
}
