// Reports: pick runs, a format and a path; the backend writes the file. Under `serve` the path is
// on the server machine (where the backend runs), not on the machine with the browser.
import { useEffect } from 'react';
import { strategyColor, strategyLabel, type ReportFormat } from '../../../electron/contract';
import { transport } from '../api/client';
import { Card, EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { formatBytes, formatNumber } from '../format';
import { useApp } from '../stores/app';
import { useReports } from '../stores/reports';
import { useRuns } from '../stores/runs';

const FORMATS: { id: ReportFormat; label: string; hint: string }[] = [
  { id: 'html', label: 'HTML', hint: 'one self-contained file, charts as SVG' },
  { id: 'pdf', label: 'PDF', hint: 'the same report, paginated' },
  { id: 'csv', label: 'CSV', hint: 'one row per run (per-step samples optional)' },
  { id: 'json', label: 'JSON', hint: 'lossless runs export (re-importable)' },
  { id: 'bundle', label: 'Reproduction bundle', hint: 'a folder, or a .zip: ds_config.json, spec.json, run.sh, hostfile' },
];

export function ReportsPage() {
  const { runs, loaded, error: runsError, load } = useRuns();
  const r = useReports();
  const dataDir = useApp((s) => s.info?.dataDir);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!r.path && dataDir) r.set({ path: `${dataDir.replace(/[\\/]+$/, '')}/reports/report.html` });
  }, [dataDir, r]);

  const where =
    transport === 'server'
      ? 'This path is on the server machine (where `serve` runs), not on this computer: copy the file from there (scp) afterwards.'
      : 'The file is written on this computer.';

  return (
    <div className="page" data-testid="reports-page">
      <PageHeader title="Reports" subtitle="Export selected runs as HTML, PDF, CSV, JSON or a reproduction bundle." />
      {runsError && <ErrorBox message={runsError} onRetry={() => void load()} />}
      {!loaded && <Skeleton lines={4} />}
      {loaded && runs.length === 0 && (
        <EmptyState title="No runs to report">
          <p>Run a comparison first (Plan → Run), or load the sample runs on the Compare page.</p>
        </EmptyState>
      )}
      {runs.length > 0 && (
        <div className="reports-grid">
          <Card title={`Runs (${r.selected.length} selected)`}>
            <div className="reports-actions">
              <button type="button" className="secondary" onClick={() => r.setSelected(runs.map((x) => x.id))}>Select all</button>
              <button type="button" className="secondary" onClick={() => r.setSelected([])}>Clear</button>
            </div>
            <table className="table" data-testid="reports-runs">
              <thead>
                <tr><th></th><th>Strategy</th><th>Run</th><th>Model</th><th>Status</th><th className="num">TFLOPS/GPU</th></tr>
              </thead>
              <tbody>
                {runs.map((run) => (
                  <tr key={run.id}>
                    <td>
                      <input type="checkbox" aria-label={`select run ${run.id}`} checked={r.selected.includes(run.id)} onChange={() => r.toggle(run.id)} />
                    </td>
                    <td>
                      {/* The one display name (the id is in the Run column), as on Runs and Compare. */}
                      <span className="strategy-cell">
                        <span className="swatch" style={{ background: strategyColor(run.strategy) }} aria-hidden="true" />
                        {strategyLabel(run.strategy)}{run.repeatIndex > 0 ? ` #${run.repeatIndex + 1}` : ''}
                      </span>
                      {/* Say which run the deltas read against: "Select all" makes it the newest one. */}
                      {r.selected[0] === run.id && <span className="badge reports-baseline" data-testid="report-baseline">baseline</span>}
                    </td>
                    <td className="mono small">{run.id}</td>
                    <td>{run.model}</td>
                    <td><span className={`badge badge-${run.status}`}>{run.status}</span></td>
                    <td className="num">{formatNumber(run.tflopsPerGpu)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted">The first selected run chooses the baseline: its group of repeats, whose median every delta reads against (as on Compare).</p>
          </Card>
          <Card title="Export">
            <fieldset className="reports-formats">
              <legend>Format</legend>
              {FORMATS.map((f) => (
                <label key={f.id}>
                  <input type="radio" name="report-format" value={f.id} checked={r.format === f.id} onChange={() => r.set({ format: f.id })} />
                  <strong>{f.label}</strong> <span className="muted">— {f.hint}</span>
                </label>
              ))}
            </fieldset>
            <label className="reports-field">
              <span>Save to (absolute path)</span>
              <input type="text" data-testid="report-path" value={r.path} spellCheck={false} onChange={(e) => r.set({ path: e.target.value })} />
            </label>
            <p className="muted" data-testid="report-path-note">{where}</p>
            {r.format === 'pdf' && (
              <label className="reports-field">
                <span>Page size</span>
                <select value={r.pageSize} onChange={(e) => r.set({ pageSize: e.target.value as 'A4' | 'Letter' })}>
                  <option value="A4">A4</option>
                  <option value="Letter">Letter</option>
                </select>
              </label>
            )}
            {(r.format === 'csv' || r.format === 'bundle') && (
              <label className="reports-check">
                <input type="checkbox" checked={r.includeSamples} onChange={(e) => r.set({ includeSamples: e.target.checked })} /> Include per-step samples
              </label>
            )}
            <label className="reports-check">
              <input type="checkbox" checked={r.overwrite} onChange={(e) => r.set({ overwrite: e.target.checked })} /> Overwrite if it exists
            </label>
            <span className="button-row">
              <button type="button" data-testid="report-export" disabled={r.busy || r.selected.length === 0 || !r.path} onClick={() => void r.exportNow()}>
                {r.busy ? 'Exporting…' : transport === 'server' ? 'Save on the server' : 'Export'}
              </button>
              {/* Under serve the browser can take the file itself: made by the backend, sent over the token-guarded connection. */}
              {transport === 'server' && (
                <button type="button" className="secondary" data-testid="report-download" disabled={r.busy || r.selected.length === 0} onClick={() => void r.downloadNow()}>
                  Download to this computer
                </button>
              )}
            </span>
            {r.downloaded && (
              <p className="reports-done" data-testid="report-downloaded">
                Downloaded <code>{r.downloaded}</code> (your browser's downloads).
              </p>
            )}
            {r.error && (
              <div className="error-box" role="alert" data-testid="report-error">
                {r.error.code === 'exists' ? (
                  <span>
                    {r.error.message}{' '}
                    <button type="button" onClick={() => { r.set({ overwrite: true }); void useReports.getState().exportNow(); }}>Overwrite</button>
                  </span>
                ) : (
                  r.error.message
                )}
              </div>
            )}
            {r.result && (
              <p className="reports-done" data-testid="report-result">
                Wrote <code>{r.result.path}</code> ({formatBytes(r.result.bytes)}){r.result.extraPaths?.map((p) => <span key={p}> and <code>{p}</code></span>)}.
              </p>
            )}
          </Card>
        </div>
      )}
    </div>
  );
}
