// Compare: the selected runs side by side. A headline says who won and by how much; bars show
// the median per strategy with the spread of its repeats and a delta table against the baseline;
// lines show every measured step; memory is stacked per resource against the machine's capacity;
// predicted vs measured shows the tuner's error; differences of systems and configs are listed.
// The page records data arrival → every chart 'finished' in data-render-ms (tests, bench).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  configDiffSectionsOfDiff,
  DARK_THEME,
  LIGHT_THEME,
  deltaRows,
  memoryPerResourceOption,
  STEP_STATISTIC,
  strategyColor,
  predictedOption,
  repeatBarsOption,
  stepLinesHeight,
  stepLinesOption,
  type Comparison,
  type DiffEntry,
  type MetricId,
} from '../../../electron/contract';
import { Chart } from '../components/Chart';
import { Card, EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { formatDelta, formatMetricValue, formatRepeats } from '../format';
import { isDarkTheme } from '../theme';
import { useApp } from '../stores/app';
import { useCompare } from '../stores/compare';
import { downloadReport, useReports } from '../stores/reports';
import { transport } from '../api/client';
import { ResourceOverlayCard } from './compare/ResourceOverlayCard';

const CHART_COUNT = 5;
const BAR_METRICS: MetricId[] = ['tflopsPerGpu', 'tokensPerSecond', 'stepSeconds'];
/** More groups than this: the bars take the card's width (their labels need it) and the delta table goes below. */
const STACK_GROUPS = 5;

// Figures through the shared metric formatter (contract formatMetricValue): the CLI's `compare` prints the same.
function DeltaTable({ c, metricId }: { c: Comparison; metricId: MetricId }) {
  const metric = c.metrics.find((m) => m.id === metricId)!;
  return (
    <table className="table delta-table" data-testid="delta-table">
      <caption className="muted small">
        {metric.label} ({metric.unit === 'bytes' ? 'GiB' : metric.unit}), {metric.better} is better · each run's {STEP_STATISTIC}; median of
        repeats, then each repeat's figure in run order
      </caption>
      <thead>
        <tr>
          <th>Strategy</th>
          <th className="num">Median</th>
          <th className="num">Δ vs baseline</th>
          <th>Repeats</th>
        </tr>
      </thead>
      <tbody>
        {deltaRows(c, metricId).map((r) => (
          <tr key={r.key} className={r.isBaseline ? 'baseline' : undefined}>
            <td>
              <span className="strategy-cell">
                <span
                  className="swatch"
                  style={{ background: strategyColor(c.groups.find((g) => g.key === r.key)?.strategy ?? r.label) }}
                  aria-hidden="true"
                />
                {r.label}
              </span>
              {/* The id beside the display name, as everywhere. */}
              <span className="muted small strategy-id"> {c.groups.find((g) => g.key === r.key)?.strategy}</span>
              {r.isBaseline && <span className="tag">baseline</span>}
            </td>
            <td className="num">{formatMetricValue(r.median, metric.unit)}</td>
            <td className={`num ${r.better === true ? 'ok-text' : r.better === false ? 'bad-text' : ''}`}>
              {r.isBaseline ? '—' : formatDelta(r.deltaPct)}
            </td>
            <td className="small muted" data-testid="delta-repeats" title="Each repeat's figure, in the order the runs ran">
              n={r.n}
              {r.n > 1 && r.stdev != null ? ` · sd ${formatMetricValue(r.stdev, metric.unit)}` : ''} · repeats:{' '}
              {formatRepeats(r.values, metric.unit)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DiffTable({ title, entries, labels, testId }: { title: string; entries: DiffEntry[]; labels: string[]; testId: string }) {
  return (
    <Card title={title} testId={testId}>
      {entries.length === 0 ? (
        <p className="muted small">No differences.</p>
      ) : (
        <div className="diff-scroll">
          <table className="table diff-table">
            <thead>
              <tr>
                <th>Path</th>
                {labels.map((l, i) => (
                  <th key={i}>{l}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {entries.map((d) => (
                <tr key={d.path}>
                  <td className="mono">{d.path}</td>
                  {d.values.map((v, i) => (
                    <td key={i} className={`mono${v !== d.values[0] ? ' diff-changed' : ''}`}>
                      {v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

/**
 * Config differences, full width: one column per repeat group (repeats share a config), only the
 * keys that differ, grouped as knobs / DeepSpeed config / FSDP2 settings / workload. A key of one
 * engine's config is compared only among that engine's columns; the others read "not applicable"
 * (with FSDP2 in the set, the DeepSpeed keys the DeepSpeed runs share are not "differences").
 */
function ConfigDiff({ c }: { c: Comparison }) {
  const columns = c.groups.map((g) => c.runs.findIndex((r) => r.id === g.runIds[0]));
  const sections = configDiffSectionsOfDiff(
    c.configDiff,
    columns,
    c.groups.map((g) => g.engine),
    ['strategy', 'prediction'],
  );
  const shown = sections.filter((s) => s.rows.length > 0 || (s.same > 0 && s.applies.some((a) => !a)));
  const differing = sections.reduce((n, s) => n + s.rows.length, 0);
  return (
    <Card title="Config differences" testId="config-diff">
      <p className="muted small" data-testid="config-diff-summary">
        {differing === 0
          ? 'The configs of these groups do not differ.'
          : `${differing} key(s) differ between ${c.groups.length} group(s); repeats share their group's config.`}
      </p>
      {shown.map((s) => {
        const na = c.groups.filter((_, i) => !s.applies[i]).map((g) => g.label);
        const applicable = c.groups.filter((_, i) => s.applies[i]).map((g) => g.label);
        return (
          <section key={s.id} className="config-diff-section" data-testid={`config-diff-${s.id}`}>
            <h4>
              {s.title}{' '}
              <span className="muted small">
                · {s.rows.length} differ{s.same > 0 ? `, ${s.same} shared` : ''}
              </span>
            </h4>
            {na.length > 0 && (
              <p className="muted small" data-testid="config-diff-na">
                Not applicable to {na.join(', ')}; compared among {applicable.join(', ') || 'none'} only.
              </p>
            )}
            {s.rows.length > 0 && (
              <div className="diff-scroll">
                <table className="table diff-table">
                  <thead>
                    <tr>
                      <th>Key</th>
                      {c.groups.map((g) => (
                        <th key={g.key}>
                          <span className="strategy-cell">
                            <span className="swatch" style={{ background: strategyColor(g.strategy) }} aria-hidden="true" />
                            {g.label}
                          </span>
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {s.rows.map((d) => {
                      const na = (v: string, i: number) => !s.applies[i] || v === 'not applicable';
                      const first = d.values.find((v, i) => !na(v, i));
                      return (
                        <tr key={d.path}>
                          <td className="mono">{d.path}</td>
                          {d.values.map((v, i) => (
                            <td key={i} className={na(v, i) ? 'muted small' : `mono${v !== first ? ' diff-changed' : ''}`}>
                              {v}
                            </td>
                          ))}
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        );
      })}
    </Card>
  );
}

/** The charts below the medians, one card each: over the steps (as tall as their legends need), then per run. */
const STEP_AND_RUN_CHARTS: {
  key: 'stepTime' | 'tflops' | 'memory' | 'predicted';
  title: string;
  testId: string;
  ariaLabel: string;
  /** Fixed height; the step charts take the height of their legends. */
  height?: number;
}[] = [
  { key: 'stepTime', title: 'Step time over steps', testId: 'chart-step-time', ariaLabel: 'Step time per measured step' },
  { key: 'tflops', title: 'TFLOPS per GPU over steps', testId: 'chart-step-tflops', ariaLabel: 'TFLOPS per GPU per measured step' },
  {
    key: 'memory',
    title: 'Memory per resource',
    testId: 'chart-memory',
    ariaLabel: 'Peak memory per resource against capacity',
    height: 300,
  },
  {
    key: 'predicted',
    title: 'Predicted vs measured',
    testId: 'chart-predicted',
    ariaLabel: 'Predicted versus measured per run',
    height: 300,
  },
];

export function ComparePage() {
  const { ids, comparison: c, loading, error, load, baselineId, setBaseline, metric, setMetric, arrivedAt } = useCompare();
  const go = useApp((s) => s.go);
  const root = useRef<HTMLDivElement | null>(null);
  const finished = useRef(new Set<string>());
  const [dark] = useState(() => isDarkTheme());
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);

  useEffect(() => {
    void load();
  }, [ids, load]);

  const theme = dark ? DARK_THEME : LIGHT_THEME;
  const barMetric = metric ?? c?.primary ?? 'tflopsPerGpu';
  const options = useMemo(
    () =>
      c && {
        bars: repeatBarsOption(c, barMetric, theme),
        stepTime: stepLinesOption(c, 'stepSeconds', theme),
        tflops: stepLinesOption(c, 'tflopsPerGpu', theme),
        memory: memoryPerResourceOption(c, theme),
        predicted: predictedOption(c, theme),
      },
    [c, barMetric, theme],
  );

  // Data → every chart's first 'finished', written on the page root for tests and the bench.
  // Keyed by the data's arrival, not reset in an effect: echarts may finish synchronously inside
  // setOption, i.e. before this page's own effects run.
  const rendered = useCallback(
    (name: string) => () => {
      const el = root.current;
      if (!el || arrivedAt == null) return;
      const token = String(arrivedAt);
      if (el.dataset.renderAt !== token) {
        el.dataset.renderAt = token;
        delete el.dataset.renderMs;
        finished.current = new Set();
      }
      finished.current.add(name);
      if (finished.current.size === CHART_COUNT && !el.dataset.renderMs) el.dataset.renderMs = (performance.now() - arrivedAt).toFixed(1);
    },
    [arrivedAt],
  );
  const on = useMemo(
    () => Object.fromEntries(['bars', 'stepTime', 'tflops', 'memory', 'predicted'].map((n) => [n, rendered(n)])),
    [rendered],
  );

  const runLabels = c?.runs.map((r) => r.label) ?? [];
  // The step charts' legends wrap (never page): the chart grows by the rows they take.
  const stepHeight = stepLinesHeight(c ?? null);
  const baselineGroup = c?.groups.find((g) => g.isBaseline);

  return (
    <div className="page compare-page" ref={root} data-testid="compare-page">
      <PageHeader
        title="Compare"
        subtitle="Runs side by side: median per strategy with the spread of repeats, deltas against a baseline."
        actions={
          <span className="button-row">
            {/* The report takes these runs: the Reports page opens with them selected. */}
            <button
              type="button"
              disabled={ids.length === 0}
              onClick={() => {
                // The comparison's baseline first, and chosen on the Reports page: the report reads its deltas against it.
                const first = c?.groups.find((g) => g.isBaseline)?.runIds ?? [];
                useReports
                  .getState()
                  .setSelected(
                    [...first.filter((id) => ids.includes(id)), ...ids.filter((id) => !first.includes(id))],
                    first.find((id) => ids.includes(id)) ?? null,
                  );
                go('reports');
              }}
              data-testid="compare-report"
            >
              Report…
            </button>
            {/* Under serve: the report straight into this browser's downloads (the comparison's runs and baseline). */}
            {transport === 'server' && (
              <button
                type="button"
                className="secondary"
                disabled={!c || downloading}
                data-testid="compare-download"
                onClick={() => {
                  const base = c?.groups.find((g) => g.isBaseline)?.runIds[0];
                  setDownloading(true);
                  setDownloadError(null);
                  downloadReport({ runIds: c ? c.runs.map((r) => r.id) : ids, format: 'html', baselineId: base })
                    .catch((e: unknown) => setDownloadError((e as Error).message ?? String(e)))
                    .finally(() => setDownloading(false));
                }}
              >
                {downloading ? 'Preparing…' : 'Download HTML report'}
              </button>
            )}
            <button type="button" className="secondary" onClick={() => go('runs')}>
              Choose runs…
            </button>
          </span>
        }
      />
      {ids.length === 0 && (
        <EmptyState title="Nothing to compare yet">
          <p>Select two or more runs on the Runs page and press Compare.</p>
          <button type="button" onClick={() => go('runs')}>
            Open Runs
          </button>
        </EmptyState>
      )}
      {error && <ErrorBox message={error} onRetry={() => void load()} />}
      {downloadError && <ErrorBox message={`The report download failed: ${downloadError}`} />}
      {ids.length > 0 && !c && loading && <Skeleton lines={6} />}
      {c && options && (
        <>
          <div className="compare-headline card" data-testid="compare-headline">
            <strong>
              {c.headline ??
                (c.groups.length < 2
                  ? 'Only one strategy is selected: select runs of another strategy to compare.'
                  : 'No figure to compare: the selected runs have no measurements.')}
            </strong>
            <div className="muted small">
              {c.runs.length} run(s) in {c.groups.length} group(s) · baseline{' '}
              <select
                aria-label="Baseline"
                value={baselineId ?? baselineGroup?.runIds[0] ?? ''}
                onChange={(e) => void setBaseline(e.target.value)}
                data-testid="baseline-select"
              >
                {c.groups.map((g) => (
                  <option key={g.key} value={g.runIds[0]}>
                    {g.label}
                  </option>
                ))}
              </select>{' '}
              · model TFLOPS per GPU: (2·c·N·s + 4·c·L·h·s²)·batch / step time, c = 4 with activation checkpointing
            </div>
            {c.warnings.length > 0 && (
              <ul className="warnings small" data-testid="compare-warnings">
                {c.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            )}
          </div>
          <div className="compare-grid">
            <Card title="Median per strategy" testId="compare-bars">
              <div className="metric-switch" role="radiogroup" aria-label="Metric">
                {BAR_METRICS.map((m) => (
                  <label key={m} className="small">
                    <input type="radio" name="bar-metric" checked={barMetric === m} onChange={() => setMetric(m)} />{' '}
                    {c.metrics.find((x) => x.id === m)!.label}
                  </label>
                ))}
              </div>
              <div className={`bars-with-table${c.groups.length > STACK_GROUPS ? ' stacked' : ''}`}>
                <Chart
                  option={options.bars}
                  height={320}
                  testId="chart-bars"
                  ariaLabel="Median per strategy with min–max spread"
                  onRendered={on.bars}
                />
                <div className="delta-scroll">
                  <DeltaTable c={c} metricId={barMetric} />
                </div>
              </div>
            </Card>
            {STEP_AND_RUN_CHARTS.map((x) => (
              <Card key={x.key} title={x.title}>
                <Chart
                  option={options[x.key]}
                  height={x.height ?? stepHeight}
                  testId={x.testId}
                  ariaLabel={x.ariaLabel}
                  onRendered={on[x.key]}
                />
              </Card>
            ))}
            <ConfigDiff c={c} />
            <DiffTable title="System differences (machine and software)" entries={c.snapshotDiff} labels={runLabels} testId="system-diff" />
          </div>
          {c.runs.length >= 2 && <ResourceOverlayCard key={c.runs.map((r) => r.id).join(',')} runs={c.runs} />}
        </>
      )}
    </div>
  );
}
