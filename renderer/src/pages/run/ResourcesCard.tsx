// The run page's resource view: the stored lanes (GPU busy, PCIe, CPU cores) over the
// run's time with warm-up marked, what they say over the measured steps, and the tuner's predicted
// terms beside the lane that measures each. A lane the run did not measure (GPU busy and PCIe on a
// machine without a GPU) is left out of the chart, as in the report, and one line says which and why;
// nothing is drawn as 0.
// While the run runs (nothing stored yet) it draws the live record the app has grown so far, and
// reads the stored one when the run ends.
import { useEffect, useMemo, useState } from 'react';
import { lanesChartHeight, lanesToDraw, resourceLanesOption } from '../../../../electron/contract/charts/resource-lanes';
import type { RunResources } from '../../../../electron/contract';
import { api } from '../../api/client';
import { Chart } from '../../components/Chart';
import { Card } from '../../components/ui';
import { formatNumber } from '../../format';
import { useResourcesLive } from '../../stores/resources-live';

export function ResourcesCard({ runId }: { runId: string }) {
  const [data, setData] = useState<RunResources | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [ended, setEnded] = useState(0);
  const growing = useResourcesLive((s) => s.byRun[runId]?.record ?? null);
  useEffect(() => {
    let live = true;
    api
      .invoke('runs/resources', { id: runId })
      .then((d) => live && setData(d))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [runId, ended]);
  // The record is stored when the run ends: read it again then.
  useEffect(() => api.on('runs/status', (e) => e.runId === runId && e.phase === 'finished' && setEnded((n) => n + 1)), [runId]);
  const lanes = useMemo(() => (data?.record ? lanesToDraw([data.record]) : null), [data]);
  const option = useMemo(() => (data?.record && lanes ? resourceLanesOption(data.record, lanes.drawn) : null), [data, lanes]);
  const liveOption = useMemo(() => (!data?.record && growing ? resourceLanesOption(growing) : null), [data, growing]);
  if (error)
    return (
      <Card title="Resources" testId="run-resources">
        <p className="warning">Resources not available: {error}</p>
      </Card>
    );
  if (!data) return null;
  if (!data.record && liveOption && growing)
    return (
      <Card title="Resources during the run, live (dashed: warm-up ends)" testId="run-resources">
        <Chart
          option={liveOption}
          height={360}
          testId="chart-run-resources-live"
          ariaLabel="GPU busy, PCIe throughput and CPU cores busy of the run, growing"
        />
        <p className="muted small" data-testid="run-resources-live-note">
          {growing.samples.length} sample(s) so far; the stored record, with the exact step marks and what the lanes say beside the
          predicted terms, is read when the run ends.
        </p>
      </Card>
    );
  if (!data.record || !data.attribution)
    return (
      <Card title="Resources" testId="run-resources">
        <p className="muted" data-testid="run-resources-missing">
          Resources not available: {data.missing}
        </p>
      </Card>
    );
  const a = data.attribution;
  return (
    <Card title="Resources during the run (dashed: warm-up ends)" testId="run-resources">
      {option && lanes && lanes.drawn.length > 0 && (
        <Chart
          option={option}
          height={lanesChartHeight(lanes.drawn.length)}
          testId="chart-run-resources"
          ariaLabel="GPU busy, PCIe throughput and CPU cores busy over the run"
        />
      )}
      {lanes?.words && (
        <p className="muted small" data-testid="run-resources-not-measured">
          Not measured in this run: {lanes.words}.
        </p>
      )}
      <p data-testid="run-resources-overall">
        <strong>Measured steps:</strong> {a.overall ? a.overall.text : 'no measured step'}
      </p>

      <table className="table" data-testid="run-resources-terms">
        <thead>
          <tr>
            <th>Predicted term</th>
            <th className="num">Seconds</th>
            <th>Lane</th>
            <th>What the lane measured</th>
          </tr>
        </thead>
        <tbody>
          {a.predicted.terms.length === 0 ? (
            <tr>
              <td colSpan={4} className="muted">
                {a.predicted.note ?? 'No predicted term above 0.'}
              </td>
            </tr>
          ) : (
            a.predicted.terms.map((t) => (
              <tr key={t.term}>
                <td>{t.term}</td>
                <td className="num">{formatNumber(t.seconds, 3)}</td>
                <td>{t.lane}</td>
                <td>{t.measured}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      {a.predicted.note && a.predicted.terms.length > 0 && <p className="muted small">{a.predicted.note}</p>}
      <details>
        <summary>Each measured step</summary>
        <ul className="small">
          {a.steps.map((s) => (
            <li key={s.label}>
              {s.label}: {s.text}
            </li>
          ))}
        </ul>
      </details>
    </Card>
  );
}
