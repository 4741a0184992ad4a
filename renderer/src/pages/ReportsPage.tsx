// Reports: pick runs, a format and a path; the backend writes the file. Under `serve` the path is
// on the server machine (where the backend runs), not on the machine with the browser.
import { useEffect, useState } from 'react';
import {
  BASELINE_RULE_WORDS,
  strategyColor,
  strategyLabel,
  type CompareGroup,
  type ReportFormat,
  type RunSummary,
} from '../../../electron/contract';
import { api, transport } from '../api/client';
import { Card, EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { formatBytes, formatNumber } from '../format';
import { idTail } from '../../../electron/contract/format';
import { useApp } from '../stores/app';
import { effectiveBaseline, useReports } from '../stores/reports';
import { useRuns } from '../stores/runs';

const FORMATS: { id: ReportFormat; label: string; hint: string }[] = [
  { id: 'html', label: 'HTML', hint: 'one self-contained file, charts as SVG' },
  { id: 'pdf', label: 'PDF', hint: 'the same report, paginated' },
  { id: 'csv', label: 'CSV', hint: 'one row per run (per-step samples optional)' },
  { id: 'json', label: 'JSON', hint: 'lossless runs export (re-importable)' },
  { id: 'bundle', label: 'Reproduction bundle', hint: 'a folder, or a .zip: ds_config.json, spec.json, run.sh, hostfile' },
];

/** compare/runs groups at most this many runs here; a larger selection is still reported with Compare's rule (by the backend). */
const MAX_GROUPED = 64;

/** "llama-3.2-3b · seq 4096 · micro batch 8 · 1 GPU · bf16 · 2 runs": what a repeat group ran. */
export function groupSummary(group: Pick<CompareGroup, 'runIds' | 'model'>, run: RunSummary | undefined): string {
  const parts = [run?.model ?? group.model];
  if (run?.seqLen != null) parts.push(`seq ${run.seqLen}`);
  if (run?.microBatch != null) parts.push(`micro batch ${run.microBatch}`);
  if (run?.worldSize != null) parts.push(`${run.worldSize} GPU${run.worldSize === 1 ? '' : 's'}`);
  if (run?.precision) parts.push(run.precision);
  parts.push(group.runIds.length === 1 ? '1 run' : `${group.runIds.length} runs (median)`);
  return parts.join(' · ');
}

/** The selected runs' repeat groups (history's grouping, as on Compare); null while unknown or too many. */
function useRepeatGroups(selected: string[]): CompareGroup[] | null {
  const [groups, setGroups] = useState<CompareGroup[] | null>(null);
  const key = selected.join('\n');
  useEffect(() => {
    let live = true;
    const ids = key ? key.split('\n') : [];
    if (ids.length === 0 || ids.length > MAX_GROUPED) {
      setGroups(null);
      return;
    }
    const timer = setTimeout(() => {
      api
        .invoke('compare/runs', { ids })
        .then((c) => live && setGroups(c.groups))
        .catch(() => live && setGroups(null));
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return groups;
}

export function ReportsPage() {
  const { runs, loaded, error: runsError, load, loadSamples, notice } = useRuns();
  const r = useReports();
  const dataDir = useApp((s) => s.info?.dataDir);
  const groups = useRepeatGroups(r.selected);
  const chosen = effectiveBaseline(r.selected, r.baselineId);
  // The chosen run's group, else Compare's (history marks it): the one the report will read against.
  const baselineGroup = groups?.find((g) => (chosen != null ? g.runIds.includes(chosen) : g.isBaseline)) ?? null;
  // The run that chose it: the chosen one, else the group's first (the report's "chosen by").
  const baselineRun = chosen ?? baselineGroup?.runIds[0];
  const inBaseline = (id: string) => (baselineGroup ? baselineGroup.runIds.includes(id) : id === baselineRun);
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
          {/* The samples button is here itself: this text once sent you to Compare, which has none. */}
          <p>Run a comparison first (Plan → Run), or load the sample runs (H200 sweeps) to try a report.</p>
          <button type="button" className="secondary" onClick={() => void loadSamples()} data-testid="reports-load-samples">
            Load the sample dataset
          </button>
          {notice && (
            <p className="muted small" role="status">
              {notice}
            </p>
          )}
        </EmptyState>
      )}
      {runs.length > 0 && (
        <div className="reports-grid">
          <Card title={`Runs (${r.selected.length} selected)`}>
            <div className="reports-actions">
              <button
                type="button"
                className="secondary"
                onClick={() =>
                  r.setSelected(
                    runs.map((x) => x.id),
                    r.baselineId,
                  )
                }
              >
                Select all
              </button>
              <button type="button" className="secondary" onClick={() => r.setSelected([])}>
                Clear
              </button>
            </div>
            <table className="table" data-testid="reports-runs">
              <thead>
                <tr>
                  <th></th>
                  <th>Strategy</th>
                  <th>Run</th>
                  <th>Model</th>
                  <th>Status</th>
                  <th className="num">TFLOPS/GPU</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((run) => (
                  <tr key={run.id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`select run ${run.id}`}
                        checked={r.selected.includes(run.id)}
                        onChange={() => r.toggle(run.id)}
                      />
                    </td>
                    <td>
                      {/* The one display name (the id is in the Run column), as on Runs and Compare. */}
                      <span className="strategy-cell">
                        <span className="swatch" style={{ background: strategyColor(run.strategy) }} aria-hidden="true" />
                        {strategyLabel(run.strategy)}
                        {run.repeatIndex > 0 ? ` #${run.repeatIndex + 1}` : ''}
                      </span>
                      {/* Which runs the deltas read against: the chosen baseline group (the run that chose it carries the test id). */}
                      {r.selected.includes(run.id) && inBaseline(run.id) && (
                        <span
                          className="badge reports-baseline"
                          data-testid={run.id === baselineRun ? 'report-baseline' : 'report-baseline-member'}
                        >
                          baseline
                        </span>
                      )}
                    </td>
                    {/* The id's end, whole on one line (the full id in its title): at 1280 the whole id broke over three lines. */}
                    <td className="mono small" title={run.id} data-testid="reports-run-id">
                      {idTail(run.id, 16)}
                    </td>
                    <td>{run.model}</td>
                    <td>
                      <span className={`badge badge-${run.status}`}>{run.status}</span>
                    </td>
                    <td className="num">{formatNumber(run.tflopsPerGpu)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
          <Card title="Export">
            <label className="reports-field">
              <span>Baseline</span>
              <select
                className="reports-baseline-select"
                data-testid="report-baseline-select"
                aria-label="Baseline"
                title={
                  baselineGroup
                    ? `${baselineGroup.label} — ${groupSummary(
                        baselineGroup,
                        runs.find((x) => x.id === baselineGroup.runIds[0]),
                      )}`
                    : undefined
                }
                disabled={!groups || groups.length === 0}
                value={baselineGroup?.key ?? ''}
                onChange={(e) => {
                  const g = groups?.find((x) => x.key === e.target.value);
                  // The rule's group stays "the rule" (these groups come from a comparison asked without
                  // a baseline, so history marks Compare's); any other is a choice.
                  const ruleGroup = groups?.find((x) => x.isBaseline);
                  r.setBaseline(!g || g === ruleGroup ? null : g.runIds[0]);
                }}
              >
                {!groups && (
                  <option value="">
                    {r.selected.length === 0
                      ? 'Select runs first'
                      : r.selected.length > MAX_GROUPED
                        ? `Compare’s rule: ${BASELINE_RULE_WORDS}`
                        : 'Reading the groups…'}
                  </option>
                )}
                {groups?.map((g) => (
                  <option key={g.key} value={g.key}>
                    {g.label} —{' '}
                    {groupSummary(
                      g,
                      runs.find((x) => x.id === g.runIds[0]),
                    )}
                  </option>
                ))}
              </select>
            </label>
            <p className="muted small" data-testid="report-baseline-note">
              {r.baselineId && r.selected.includes(r.baselineId)
                ? 'Chosen here. Every delta (header, summary, run table, CSV) reads against this group’s median of repeats, as on Compare.'
                : `By default the baseline Compare picks for these runs (${BASELINE_RULE_WORDS}), whatever order they were selected in. Every delta (header, summary, run table, CSV) reads against its median of repeats, as on Compare.`}
            </p>
            <fieldset className="reports-formats">
              <legend>Format</legend>
              {FORMATS.map((f) => (
                <label key={f.id}>
                  <input
                    type="radio"
                    name="report-format"
                    value={f.id}
                    checked={r.format === f.id}
                    onChange={() => r.set({ format: f.id })}
                  />
                  <strong>{f.label}</strong> <span className="muted">— {f.hint}</span>
                </label>
              ))}
            </fieldset>
            <label className="reports-field">
              <span>Save to (absolute path)</span>
              <input
                type="text"
                data-testid="report-path"
                value={r.path}
                spellCheck={false}
                onChange={(e) => r.set({ path: e.target.value })}
              />
            </label>
            <p className="muted" data-testid="report-path-note">
              {where}
            </p>
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
                <input type="checkbox" checked={r.includeSamples} onChange={(e) => r.set({ includeSamples: e.target.checked })} /> Include
                per-step samples
              </label>
            )}
            <label className="reports-check">
              <input type="checkbox" checked={r.overwrite} onChange={(e) => r.set({ overwrite: e.target.checked })} /> Overwrite if it
              exists
            </label>
            <span className="button-row">
              <button
                type="button"
                data-testid="report-export"
                disabled={r.busy || r.selected.length === 0 || !r.path}
                onClick={() => void r.exportNow()}
              >
                {r.busy ? 'Exporting…' : transport === 'server' ? 'Save on the server' : 'Export'}
              </button>
              {/* Under serve the browser can take the file itself: made by the backend, sent over the token-guarded connection. */}
              {transport === 'server' && (
                <button
                  type="button"
                  className="secondary"
                  data-testid="report-download"
                  disabled={r.busy || r.selected.length === 0}
                  onClick={() => void r.downloadNow()}
                >
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
                    <button
                      type="button"
                      onClick={() => {
                        r.set({ overwrite: true });
                        void useReports.getState().exportNow();
                      }}
                    >
                      Overwrite
                    </button>
                  </span>
                ) : (
                  r.error.message
                )}
              </div>
            )}
            {r.result && (
              <p className="reports-done" data-testid="report-result">
                Wrote <code>{r.result.path}</code> ({formatBytes(r.result.bytes)})
                {r.result.extraPaths?.map((p) => (
                  <span key={p}>
                    {' '}
                    and <code>{p}</code>
                  </span>
                ))}
                .
              </p>
            )}
          </Card>
        </div>
      )}
    </div>
  );
}
