// The Run page with nothing running: the sweep that finished last (after a reload, or in another
// window), with its runs linked and Compare these — once it said only "Nothing is running" and a
// new user had to find the runs just made in the Runs list.
import { useEffect, useState } from 'react';
import type { RunSummary } from '../../../../electron/contract';
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import { api } from '../../api/client';
import { formatDateTime } from '../../format';
import { runHref, useApp } from '../../stores/app';
import { useCompare } from '../../stores/compare';

/** The newest sweep's runs among `runs` (newest first by creation), or null without a sweep. */
export function lastSweepRuns(runs: readonly RunSummary[]): RunSummary[] | null {
  const newest = [...runs].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).find((r) => r.sweepId && r.status !== 'running');
  if (!newest) return null;
  return runs.filter((r) => r.sweepId === newest.sweepId).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export function LastSweep() {
  const go = useApp((s) => s.go);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  useEffect(() => {
    let live = true;
    api
      .invoke('runs/list', { limit: 50 })
      .then((r) => live && setRuns(lastSweepRuns(r.runs)))
      .catch(() => live && setRuns(null));
    return () => {
      live = false;
    };
  }, []);
  if (!runs?.length) return null;
  const completed = runs.filter((r) => r.status === 'completed').map((r) => r.id);
  const finished = runs.map((r) => r.finishedAt).filter((t): t is string => !!t);
  return (
    <div data-testid="last-sweep">
      <p>
        The last sweep{finished.length ? `, finished ${formatDateTime(finished.sort().at(-1)!)}` : ''}: {runs.length} run(s),{' '}
        {completed.length} completed.
      </p>
      <ul>
        {runs.map((r) => (
          <li key={r.id}>
            <a href={runHref(r.id)}>
              {strategyLabel(r.strategy)}
              {r.repeatIndex > 0 ? ` #${r.repeatIndex + 1}` : ''}
            </a>{' '}
            <span className={`badge badge-${r.status}`}>{r.status}</span> <span className="muted small">{r.model}</span>
          </li>
        ))}
      </ul>
      <div className="button-row">
        <button
          type="button"
          disabled={completed.length === 0}
          onClick={() => {
            useCompare.getState().open(completed);
            go('compare');
          }}
          data-testid="last-sweep-compare"
        >
          Compare these
        </button>
      </div>
    </div>
  );
}
