// One stored run, reachable by URL (#/runs/<id>): what ran (config, knobs, workload), how it went
// (per-step curves, the figures as medians of measured steps beside the tuner's prediction),
// where (the machine at run time), and when it failed, the class, the message and the fix.
import { useEffect, useMemo, useState } from 'react';
import { runStepsOption, warmupOffScale } from '../../../electron/contract/charts/live-charts';
import { failureLabel, STEP_STATISTIC, strategyLabel } from '../../../electron/contract/charts/labels';
import type { RunDetail, StoredDocumentName } from '../../../electron/contract';
import { ranWorkloadOf } from '../../../electron/contract/ran-workload';
import { hasPrediction, NO_PREDICTION, NO_PREDICTION_WHY } from '../../../electron/contract/format';
import { api } from '../api/client';
import { Chart } from '../components/Chart';
import { Card, ErrorBox, KeyValues, PageHeader, Skeleton } from '../components/ui';
import { formatBytes, formatDateTime, formatDelta, formatDuration as formatSeconds, formatNumber } from '../format';
import { useApp } from '../stores/app';
import { StrategyName } from './plan/StrategyName';
import { TrainingLaunch } from './run/TrainingLaunch';
import { ResourcesCard } from './run/ResourcesCard';
import { LossCard } from './run/LossCard';

/** A run's wall time, written as every duration in the app is ("51s", "1m 05s", "1h 2m"). */
export function formatDuration(startedAt: string | null, finishedAt: string | null): string {
  if (!startedAt || !finishedAt) return '—';
  const s = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
  if (!Number.isFinite(s) || s < 0) return '—';
  return formatSeconds(s);
}

/** What each stored document is, in the words of this page. */
const STORED_DOCUMENT_LABEL: Record<StoredDocumentName, string> = {
  spec: 'the run spec',
  hello: "the runner's versions",
  config: "the runner's config",
  result: "the runner's result",
  predicted: 'the prediction',
  snapshot: 'the machine snapshot',
};

function deltaText(measured: number | null, predicted: number | null): string {
  if (measured == null || predicted == null || predicted === 0) return '';
  return formatDelta(((measured - predicted) / predicted) * 100);
}

export function RunDetailPage({ id }: { id: string }) {
  const openRun = useApp((s) => s.openRun);
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setDetail(null);
    setError(null);
    api
      .invoke('runs/get', { id, logLines: 200 })
      .then((d) => live && setDetail(d))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [id]);

  const points = useMemo(() => (detail && detail.samples.length ? detail.samples : null), [detail]);
  const chart = useMemo(() => (detail && points ? runStepsOption(points, detail.summary.strategy) : null), [detail, points]);
  const offScale = useMemo(() => (points ? warmupOffScale(points) : []), [points]);

  const back = (
    <button type="button" className="secondary" onClick={() => openRun(null)}>
      All runs
    </button>
  );
  if (error)
    return (
      <div className="page" data-testid="run-detail">
        <PageHeader title="Run" subtitle={id} actions={back} />
        <ErrorBox message={error} />
      </div>
    );
  if (!detail)
    return (
      <div className="page">
        <PageHeader title="Run" subtitle={id} actions={back} />
        <Skeleton lines={6} />
      </div>
    );

  const r = detail.summary;
  // The stored documents are typed, lenient readings (contract stored.ts): absent fields read as absent.
  const { spec, snapshot: machine } = detail;
  const predicted = detail.predicted ?? spec?.prediction ?? null;
  // the runner's count of CUDA caching-allocator retries during the measured steps (absent from older runs)
  const allocRetries = detail.result?.gpuAllocRetries ?? 0;
  const config = spec?.dsConfig ?? spec?.fsdp ?? (detail.config ? (detail.config.config ?? detail.config) : null);
  const knobs = Object.entries(spec?.knobs ?? {});
  // what the run ran, read by the rule the list, the report and the CSV read it by
  const ran = ranWorkloadOf(detail);
  // A CPU smoke run's plan holds zeros where a GPU plan holds its prediction: no prediction, not 0 s.
  const speedPredicted = hasPrediction(predicted);
  const speed = (k: 'stepSeconds' | 'tflopsPerGpu' | 'tokensPerSecond') => (speedPredicted ? (predicted?.[k] ?? null) : null);
  const rows: [string, number | null, number | null, (v: number | null) => string][] = [
    [`Step time (s, ${STEP_STATISTIC})`, r.stepSeconds, speed('stepSeconds'), (v) => formatNumber(v, 3)],
    ['Model TFLOPS per GPU', r.tflopsPerGpu, speed('tflopsPerGpu'), (v) => formatNumber(v, 1)],
    ['Tokens per second', r.tokensPerSecond, speed('tokensPerSecond'), (v) => formatNumber(v, 0)],
    ['GPU memory peak', r.peakGpuBytes, predicted?.gpuPeakBytes ?? null, (v) => (v == null ? '—' : formatBytes(v))],
    ['Host memory peak', r.peakHostBytes, predicted?.hostPeakBytes ?? null, (v) => (v == null ? '—' : formatBytes(v))],
  ];

  return (
    <div className="page run-detail" data-testid="run-detail" data-run-id={r.id}>
      <PageHeader title={`${strategyLabel(r.strategy)} · ${r.model}`} subtitle={`Run ${r.id}`} actions={back} />
      <div className="grid">
        <Card title="The run">
          <KeyValues
            rows={[
              ['Strategy', <StrategyName id={r.strategy} />],
              ['Status', <span className={`badge badge-${r.status}`}>{r.status}</span>],
              ['Started', formatDateTime(r.startedAt ?? r.createdAt)],
              ['Duration', formatDuration(r.startedAt, r.finishedAt)],
              ['Steps', detail.steps != null ? `${detail.steps} measured after ${detail.warmup ?? 0} warm-up` : '—'],
              ['Sweep', r.sweepId ? `${r.sweepId} · repeat ${r.repeatIndex + 1}` : '—'],
              ['Tags', r.tags.length ? r.tags.join(', ') : '—'],
              ...(r.notes ? [['Notes', r.notes] as [string, string]] : []),
              // A run that was a Slurm job: where it ran, and Slurm's last word on it (pending reason included).
              ...(detail.job
                ? [
                    [
                      'Slurm job',
                      `${detail.job.jobId} on ${detail.job.target} (partition ${detail.job.partition})${detail.job.nodes.length ? `, nodes ${detail.job.nodes.join(', ')}` : ''} — ${detail.job.state}${detail.job.reason && detail.job.reason !== 'None' ? ` (${detail.job.reason})` : ''}`,
                    ] as [string, string],
                  ]
                : []),
            ]}
          />
        </Card>
        <Card title="Measured vs predicted" testId="run-figures">
          <table className="table">
            <thead>
              <tr>
                <th>Figure</th>
                <th className="num">Measured</th>
                <th className="num">Predicted</th>
                <th className="num">Error</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([label, m, p, f], i) => {
                // A CPU smoke run (no speed prediction): the plan's GPU figure is for a GPU it did not
                // have, and its host figure is the pre-flight's size of the run (the GPU side counted in
                // host memory too) — an upper bound, not a prediction to read an error against (the
                // walk-through's tiny run: 1016.5 MiB measured, '5.8 GiB, −83.0 %').
                const cpuRun = !!predicted && !speedPredicted;
                const preflightSize = cpuRun && i === 4 && p != null;
                return (
                  <tr key={label}>
                    <td>{label}</td>
                    <td className="num">{f(m)}</td>
                    {cpuRun && i < 4 ? (
                      <td className="num" data-testid="no-prediction" title={NO_PREDICTION_WHY}>
                        {NO_PREDICTION} <span className="muted small">{NO_PREDICTION_WHY}</span>
                      </td>
                    ) : preflightSize ? (
                      <td
                        className="num"
                        data-testid="preflight-size"
                        title="What the pre-flight checked this run against: an upper bound, not a prediction"
                      >
                        {f(p)} <span className="muted small">pre-flight size, not a prediction</span>
                      </td>
                    ) : (
                      <td className="num">{f(p)}</td>
                    )}
                    <td className="num">{cpuRun ? '' : deltaText(m, p)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p className="muted small">Measured figures are medians of the measured steps (warm-up steps not counted).</p>
          {allocRetries > 0 && (
            <p className="warning" data-testid="alloc-retries">
              The GPU&apos;s memory allocator ran out of free blocks {allocRetries} time(s) during the measured steps and had to free its
              cache and retry: the GPU is near full, and these step times include those stalls. A smaller micro batch or a higher offload
              ratio may be faster.
            </p>
          )}
        </Card>
      </div>
      {r.errorClass || r.errorMessage ? (
        <Card title="What went wrong" testId="run-failure">
          <p>
            <strong>{r.errorClass ? failureLabel(r.errorClass) : 'Failed'}</strong>
            {r.errorClass && <span className="muted small"> ({r.errorClass})</span>}
          </p>
          {r.errorMessage && <p>{r.errorMessage}</p>}
          {detail.errorFix && <p>Fix: {detail.errorFix}</p>}
        </Card>
      ) : null}
      {detail.unparsed?.length ? (
        <p className="warning" data-testid="run-unparsed">
          Stored with this run but not readable as this version reads it (shown without it):{' '}
          {detail.unparsed.map((u) => `${STORED_DOCUMENT_LABEL[u.document]} (${u.reason})`).join('; ')}.
        </p>
      ) : null}
      {chart && (
        <Card title="Per step (grey: warm-up, not counted)">
          <Chart option={chart} height={300} testId="chart-run-steps" ariaLabel="Step time and TFLOPS per step" />
          <p className="muted small" data-testid="run-steps-note">
            The axes are scaled to the measured steps.
            {offScale.length > 0 && <> Warm-up off the scale (arrow on the edge): {offScale.join('; ')}.</>}
          </p>
        </Card>
      )}
      {(detail.samples.length > 0 || r.status === 'running') && <LossCard points={detail.samples} strategy={r.strategy} runId={r.id} />}
      <ResourcesCard runId={r.id} />
      <div className="grid">
        <Card title="Workload and knobs" testId="run-config">
          <KeyValues
            rows={[
              ['Model', r.model],
              ['Sequence length', String(ran.seqLen ?? r.seqLen ?? '—')],
              ['Micro batch / GPU', String(ran.microBatch ?? r.microBatch ?? '—')],
              ['Gradient accumulation', String(ran.gradAccum ?? '—')],
              ['GPUs × nodes', `${ran.gpus} × ${ran.nodes}`],
              ['Precision', String(ran.precision ?? r.precision ?? '—')],
              ['Knobs', knobs.length ? knobs.map(([k, v]) => `${k} ${String(v)}`).join(', ') : '—'],
              ['Config hash', <code>{spec?.configHash ?? r.configHash ?? '—'}</code>],
            ]}
          />
        </Card>
        <Card title="Machine" testId="run-machine">
          {machine?.gpus ? (
            <KeyValues
              rows={[
                ['Host', machine.hostname],
                ['GPUs', machine.gpus.length ? `${machine.gpus.length} × ${machine.gpus[0].name}` : 'none'],
                ['CPU', `${machine.cpu?.model ?? '—'} (${machine.cpu?.physicalCores ?? '—'} cores)`],
                ['Memory', formatBytes(machine.memory?.totalBytes ?? 0)],
                ['Machine id', <code>{machine.machineId}</code>],
              ]}
            />
          ) : (
            <p className="muted">No system snapshot was stored with this run.</p>
          )}
        </Card>
      </div>
      {config ? (
        <Card title={r.engine === 'fsdp2' ? 'FSDP2 settings' : 'ds_config.json'}>
          <details>
            <summary>Show the exact config the engine ran</summary>
            <pre className="code">{JSON.stringify(config, null, 2)}</pre>
          </details>
        </Card>
      ) : null}
      <TrainingLaunch spec={detail.spec} />
      <Card title="Engine log (last lines)">
        <pre className="code log" data-testid="run-log-tail">
          {detail.logTail.length ? detail.logTail.join('\n') : 'No log was kept for this run.'}
        </pre>
      </Card>
    </div>
  );
}
