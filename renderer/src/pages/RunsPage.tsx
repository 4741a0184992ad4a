// Runs: every stored benchmark run in one sortable, filterable table. The table is windowed by
// hand (fixed row height; only the visible rows plus an overscan are in the DOM), so 10,000+
// runs scroll smoothly. Select runs to compare or delete; click a row to edit its tags and notes.
import { useEffect, useMemo, useRef, useState, type UIEvent } from 'react';
import { STEP_STATISTIC, strategyColor, strategyLabel, type RunSummary } from '../../../electron/contract';
import { EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { idTail } from '../../../electron/contract/format';
import { formatDateTime, formatNumber } from '../format';
import { runHref, useApp } from '../stores/app';
import { machineParts, useMachines } from '../stores/machines';
import { formatDuration } from './RunDetailPage';
import { useCompare } from '../stores/compare';
import { useReports } from '../stores/reports';
import { EMPTY_FILTER, filterRuns, sortRuns, useRuns, type SortKey } from '../stores/runs';

export const ROW_HEIGHT = 36;
const OVERSCAN = 8;
/** The table's scroll box: at least this tall, else what the window leaves below the page's header,
 *  filters and the table head (a 1080-pixel window showed 14 rows in a 520-pixel box above an empty half). */
const VIEWPORT_MIN_HEIGHT = 360;
const CHROME_ABOVE_TABLE = 250;

function useViewportHeight(): number {
  const measure = () => Math.max(VIEWPORT_MIN_HEIGHT, (typeof window === 'undefined' ? 770 : window.innerHeight) - CHROME_ABOVE_TABLE);
  const [height, setHeight] = useState(measure);
  useEffect(() => {
    const onResize = () => setHeight(measure());
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return height;
}
/** A sweep id's end in the Sweep column (its time and random suffix: what tells sweeps apart); the cell's title has it whole. */
const SWEEP_CHARS = 12;

// Which way is better is said in words ("high"/"low" best), so it never reads as the sort arrow (▲/▼).
const COLUMNS: { key: SortKey | null; label: string; className?: string; better?: 'high' | 'low'; title?: string }[] = [
  { key: null, label: '' },
  { key: 'createdAt', label: 'Created (UTC)' },
  { key: 'status', label: 'Status' },
  { key: 'model', label: 'Model' },
  { key: 'strategy', label: 'Strategy' },
  { key: 'duration', label: 'Duration', className: 'num col-duration' },
  { key: 'machineId', label: 'Machine' },
  { key: 'sweepId', label: 'Sweep' },
  { key: null, label: 'Tags' },
  { key: 'tflopsPerGpu', label: 'TFLOPS/GPU', className: 'num', better: 'high', title: `Model TFLOPS per GPU, ${STEP_STATISTIC}` },
  { key: 'tokensPerSecond', label: 'Tokens/s', className: 'num col-tokens', better: 'high', title: `Tokens per second, ${STEP_STATISTIC}` },
  { key: 'stepSeconds', label: 'Step s', className: 'num', better: 'low', title: `Step time in seconds, ${STEP_STATISTIC}` },
];

/** The rows to render for a scroll position: [first, last) with overscan on both sides. */
export function visibleWindow(scrollTop: number, viewport: number, count: number, rowHeight = ROW_HEIGHT, overscan = OVERSCAN) {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, last };
}

const distinct = (runs: RunSummary[], pick: (r: RunSummary) => string[]) => [...new Set(runs.flatMap(pick))].sort();

function RunEditor({ run, onClose }: { run: RunSummary; onClose: () => void }) {
  const update = useRuns((s) => s.update);
  const [tags, setTags] = useState(run.tags.join(', '));
  const [notes, setNotes] = useState(run.notes);
  useEffect(() => {
    setTags(run.tags.join(', '));
    setNotes(run.notes);
  }, [run.id, run.tags, run.notes]);
  return (
    <section className="card run-editor" aria-label={`Edit run ${run.id}`} data-testid="run-editor">
      <h2>
        {strategyLabel(run.strategy)} · {run.model} <span className="muted small">{run.id}</span>
      </h2>
      <p className="small">
        <a href={runHref(run.id)} data-testid="open-run-page">
          Open the run page (config, steps, machine, log) ›
        </a>
      </p>
      {run.errorMessage && (
        <p className="warn-text small">
          {run.errorClass ? `${run.errorClass}: ` : ''}
          {run.errorMessage}
        </p>
      )}
      <label className="field">
        <span>Tags (comma separated)</span>
        <input value={tags} onChange={(e) => setTags(e.target.value)} data-testid="run-tags" />
      </label>
      <label className="field">
        <span>Notes</span>
        <textarea rows={3} value={notes} onChange={(e) => setNotes(e.target.value)} data-testid="run-notes" />
      </label>
      <div className="button-row">
        <button
          type="button"
          onClick={() =>
            void update(run.id, {
              tags: tags
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
              notes,
            }).then(onClose)
          }
        >
          Save
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}

export function RunsPage() {
  const { runs, total, loaded, error, load, filter, setFilter, sort, sortBy, selected, toggle, setSelected, remove, notice, loadSamples } =
    useRuns();
  const go = useApp((s) => s.go);
  const openCompare = useCompare((s) => s.open);
  const [scrollTop, setScrollTop] = useState(0);
  const viewportHeight = useViewportHeight();
  const [editing, setEditing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const viewport = useRef<HTMLDivElement | null>(null);

  useEffect(() => {
    void load();
  }, [load]);
  const machineNames = useMachines((s) => s.names);
  const machines = useMachines((s) => s.machines);
  useEffect(() => {
    void useMachines.getState().resolve(runs);
  }, [runs]);

  const sorted = useMemo(() => sortRuns(runs, sort), [runs, sort]);
  const rows = useMemo(() => filterRuns(sorted, filter), [sorted, filter]);
  const options = useMemo(
    () => ({
      models: distinct(runs, (r) => [r.model]),
      strategies: distinct(runs, (r) => [r.strategy]),
      tags: distinct(runs, (r) => r.tags),
    }),
    [runs],
  );
  // The same <option> elements every render: React skips them, so a keystroke does not
  // reconcile a thousand tag options.
  const optionElements = useMemo(
    () => ({
      models: options.models.map((m) => <option key={m}>{m}</option>),
      strategies: options.strategies.map((s) => (
        <option key={s} value={s}>
          {strategyLabel(s)}
        </option>
      )),
      tags: options.tags.map((t) => <option key={t}>{t}</option>),
    }),
    [options],
  );
  // A new filter starts at the top: the old scroll offset may be past the end.
  useEffect(() => {
    if (viewport.current) viewport.current.scrollTop = 0;
    setScrollTop(0);
  }, [filter, sort]);

  const { first, last } = visibleWindow(scrollTop, viewportHeight, rows.length);
  const selectedSet = new Set(selected);
  const editingRun = editing ? runs.find((r) => r.id === editing) : undefined;
  const allVisibleSelected = rows.length > 0 && rows.every((r) => selectedSet.has(r.id));

  const actions = (
    <span className="button-row">
      {/* compare/runs takes at most 64 runs: more would not read as a chart anyway. */}
      <button
        type="button"
        disabled={selected.length < 1 || selected.length > 64}
        title={selected.length > 64 ? 'Compare at most 64 runs at a time' : undefined}
        data-testid="compare-selected"
        onClick={() => (openCompare(selected), go('compare'))}
      >
        Compare {selected.length ? `(${selected.length}${selected.length > 64 ? ' — max 64' : ''})` : ''}
      </button>
      <button
        type="button"
        className="secondary"
        disabled={selected.length < 1}
        onClick={() => (useReports.getState().setSelected(selected), go('reports'))}
        data-testid="report-selected"
      >
        Report…
      </button>
      <button type="button" className="secondary" disabled={selected.length < 1} onClick={() => setConfirming(true)}>
        Delete…
      </button>
    </span>
  );

  return (
    <div className="page" data-testid="runs-page">
      <PageHeader
        title="Runs"
        subtitle="Every benchmark run, with its status and headline figures. Select runs to compare them."
        actions={actions}
      />
      {error && <ErrorBox message={error} onRetry={() => void load()} />}
      {notice && (
        <p className="muted small" role="status">
          {notice}
        </p>
      )}
      {confirming && (
        <div className="confirm" role="alertdialog" aria-label="Confirm delete">
          <span>
            Delete {selected.length} run(s) with their samples and details? This cannot be undone (export them first to keep a copy).
          </span>
          <button
            type="button"
            className="danger"
            data-testid="confirm-delete"
            onClick={() => void remove(selected).then(() => setConfirming(false))}
          >
            Delete
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {!loaded && <Skeleton lines={5} />}
      {loaded && !error && runs.length === 0 && (
        <EmptyState title="No runs yet">
          <p>
            Run your first comparison: pick a workload on the Plan page and start a sweep — or import a runs file:{' '}
            <code>npm run cli -- import-runs runs.json</code>.
          </p>
          <button type="button" className="secondary" onClick={() => void loadSamples()}>
            Load the sample dataset
          </button>
        </EmptyState>
      )}
      {runs.length > 0 && (
        <>
          <div className="runs-filters" role="search">
            <input
              type="search"
              placeholder="Search id, model, strategy, tag, note"
              aria-label="Search runs"
              value={filter.text}
              onChange={(e) => setFilter({ text: e.target.value })}
              data-testid="runs-search"
            />
            <select aria-label="Model" value={filter.model} onChange={(e) => setFilter({ model: e.target.value })}>
              <option value="">All models</option>
              {optionElements.models}
            </select>
            <select aria-label="Strategy" value={filter.strategy} onChange={(e) => setFilter({ strategy: e.target.value })}>
              <option value="">All strategies</option>
              {optionElements.strategies}
            </select>
            <select
              aria-label="Status"
              value={filter.status}
              onChange={(e) => setFilter({ status: e.target.value as typeof filter.status })}
            >
              <option value="">Any status</option>
              {['completed', 'failed', 'cancelled', 'interrupted', 'running', 'queued'].map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
            <select aria-label="Tag" value={filter.tag} onChange={(e) => setFilter({ tag: e.target.value })}>
              <option value="">Any tag</option>
              {optionElements.tags}
            </select>
            {JSON.stringify(filter) !== JSON.stringify(EMPTY_FILTER) && (
              <button type="button" className="secondary" onClick={() => setFilter(EMPTY_FILTER)}>
                Clear
              </button>
            )}
            <span className="muted small" data-testid="runs-count">
              {rows.length === total ? `${total} run(s)` : `${rows.length} of ${total} run(s)`} · {selected.length} selected
            </span>
          </div>
          <div className="runs-grid" role="grid" aria-rowcount={rows.length + 1} data-testid="runs-table">
            <div className="runs-row runs-head" role="row">
              {COLUMNS.map((c, i) =>
                i === 0 ? (
                  <span key="sel" role="columnheader">
                    <input
                      type="checkbox"
                      aria-label="Select all shown"
                      checked={allVisibleSelected}
                      onChange={() => setSelected(allVisibleSelected ? [] : rows.map((r) => r.id))}
                    />
                  </span>
                ) : (
                  <span
                    key={c.label}
                    role="columnheader"
                    className={c.className}
                    title={c.title}
                    aria-sort={c.key && sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                  >
                    {c.key ? (
                      <button type="button" className="sort" onClick={() => sortBy(c.key!)}>
                        {c.label}
                        {c.better && (
                          <span className="better-mark" title={`${c.better}er is better`}>
                            {c.better} best
                          </span>
                        )}
                        {sort.key === c.key ? (
                          <span className="sort-mark" aria-hidden="true">
                            {sort.dir === 'asc' ? ' ▲' : ' ▼'}
                          </span>
                        ) : (
                          ''
                        )}
                      </button>
                    ) : (
                      c.label
                    )}
                  </span>
                ),
              )}
            </div>
            <div
              className="runs-viewport"
              ref={viewport}
              style={{ height: Math.min(viewportHeight, Math.max(rows.length, 1) * ROW_HEIGHT + 2) }}
              onScroll={(e: UIEvent<HTMLDivElement>) => setScrollTop(e.currentTarget.scrollTop)}
            >
              <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
                {rows.slice(first, last).map((r, k) => {
                  const index = first + k;
                  return (
                    <div
                      key={r.id}
                      role="row"
                      aria-rowindex={index + 2}
                      aria-selected={selectedSet.has(r.id)}
                      className={`runs-row${selectedSet.has(r.id) ? ' selected' : ''}${editing === r.id ? ' editing' : ''}`}
                      style={{ top: index * ROW_HEIGHT, height: ROW_HEIGHT }}
                      data-testid="run-row"
                      data-run-id={r.id}
                      onClick={() => setEditing(r.id)}
                    >
                      <span role="gridcell" onClick={(e) => e.stopPropagation()}>
                        <input
                          type="checkbox"
                          aria-label={`Select run ${r.id}`}
                          checked={selectedSet.has(r.id)}
                          onChange={() => toggle(r.id)}
                        />
                      </span>
                      <span role="gridcell" className="small" title={`${formatDateTime(r.createdAt)} — open the run page`}>
                        <a href={runHref(r.id)} onClick={(e) => e.stopPropagation()} data-testid="run-link">
                          {formatDateTime(r.createdAt, 'short')}
                        </a>
                      </span>
                      <span role="gridcell">
                        <span className={`badge badge-${r.status}`}>{r.status}</span>
                      </span>
                      <span role="gridcell" title={r.model}>
                        {r.model}
                      </span>
                      <span role="gridcell" title={r.strategy}>
                        <span className="swatch" style={{ background: strategyColor(r.strategy) }} aria-hidden="true" />
                        {/* The label gives way (ellipsis), never the repeat marker: "#3" is what tells repeats apart. */}
                        <span className="strategy-name">{strategyLabel(r.strategy)}</span>
                        {r.repeatIndex > 0 ? (
                          <span className="muted small repeat-mark" data-testid="repeat-mark">
                            #{r.repeatIndex + 1}
                          </span>
                        ) : null}
                      </span>
                      <span role="gridcell" className="num col-duration">
                        {formatDuration(r.startedAt, r.finishedAt)}
                      </span>
                      <span
                        role="gridcell"
                        className="small"
                        title={r.machineId ? `${machineNames[r.machineId] ?? ''} (${r.machineId})` : undefined}
                      >
                        {/* The name (hostname) shows whole; what GPUs it has follows and gives way (the title has it all). */}
                        {r.machineId && machines[r.machineId] ? (
                          <>
                            <span className="machine-host">{machineParts(machines[r.machineId]).host}</span>
                            <span className="muted machine-gpus">{` · ${machineParts(machines[r.machineId]).gpus}`}</span>
                          </>
                        ) : r.machineId ? (
                          idTail(r.machineId, 9)
                        ) : (
                          '—'
                        )}
                      </span>
                      <span role="gridcell" className="small" title={r.sweepId ?? undefined} data-testid="run-sweep">
                        {r.sweepId ? idTail(r.sweepId, SWEEP_CHARS) : '—'}
                      </span>
                      <span role="gridcell" className="tags" title={r.notes || undefined}>
                        {r.tags.map((t) => (
                          <span key={t} className={`tag${t === 'sample' ? ' tag-sample' : ''}`}>
                            {t}
                          </span>
                        ))}
                        {r.notes ? (
                          <span className="muted small" aria-label="has notes">
                            {' '}
                            ✎
                          </span>
                        ) : null}
                      </span>
                      <span role="gridcell" className="num">
                        {formatNumber(r.tflopsPerGpu)}
                      </span>
                      <span role="gridcell" className="num col-tokens">
                        {formatNumber(r.tokensPerSecond, 0)}
                      </span>
                      <span role="gridcell" className="num">
                        {formatNumber(r.stepSeconds, 3)}
                      </span>
                    </div>
                  );
                })}
              </div>
            </div>
          </div>
          {editingRun && <RunEditor run={editingRun} onClose={() => setEditing(null)} />}
        </>
      )}
    </div>
  );
}
