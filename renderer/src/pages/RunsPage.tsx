// Runs: every stored benchmark run.
import { useEffect } from 'react';
import { EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { formatNumber } from '../format';
import { useRuns } from '../stores/runs';

export function RunsPage() {
  const { runs, total, loaded, error, load } = useRuns();
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <div className="page">
      <PageHeader title="Runs" subtitle="Every benchmark run, with its status and headline figures." />
      {error && <ErrorBox message={error} onRetry={() => void load()} />}
      {!loaded && <Skeleton lines={5} />}
      {loaded && !error && runs.length === 0 && (
        <EmptyState title="No runs yet">
          <p>Run your first comparison: pick a workload on the Plan page and start a sweep.</p>
        </EmptyState>
      )}
      {runs.length > 0 && (
        <table className="table" data-testid="runs-table">
          <caption className="muted">{total} run(s)</caption>
          <thead>
            <tr>
              <th>Started</th>
              <th>Status</th>
              <th>Model</th>
              <th>Strategy</th>
              <th>TFLOPS/GPU</th>
              <th>Tokens/s</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id}>
                <td>{new Date(r.createdAt).toLocaleString()}</td>
                <td>
                  <span className={`badge badge-${r.status}`}>{r.status}</span>
                </td>
                <td>{r.model}</td>
                <td>{r.strategy}</td>
                <td>{formatNumber(r.tflopsPerGpu)}</td>
                <td>{formatNumber(r.tokensPerSecond, 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
