// Your own DeepSpeed config on the Plan page: drop (or pick) a ds_config.json and get what the app
// makes of it for the form's model and sequence on the chosen machine — the "auto" values it filled,
// the strategy it runs as, the verdict and prediction, the tuned alternative as the keys to change
// with the predicted (and, after runs, the measured) gain — and the files your training takes.
import { useState, type DragEvent } from 'react';
import type { LaunchExport, UserConfigPlan } from '../../../../electron/contract';
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import { hasPrediction } from '../../../../electron/contract/format';
import { globalBatch } from '../../../../electron/contract/ran-workload';
import { api } from '../../api/client';
import { Card, ErrorBox } from '../../components/ui';
import { formatBytes, formatNumber } from '../../format';
import { useApp } from '../../stores/app';
import { useEngine } from '../../stores/engine';
import { overrides, usePlan } from '../../stores/plan';
import { planTarget, useHostId } from './PlannedFor';

const show = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));

/** The form's micro batch / accumulation fill only an "auto": the config's own values decide otherwise. */
function autoBatchKeys(text: string): { micro: boolean; accum: boolean } {
  try {
    const c = JSON.parse(text) as Record<string, unknown>;
    return { micro: c.train_micro_batch_size_per_gpu === 'auto', accum: c.gradient_accumulation_steps === 'auto' };
  } catch {
    return { micro: false, accum: false };
  }
}

function download(name: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Exports({ which, files }: { which: string; files: LaunchExport }) {
  return (
    <div className="stack" data-testid={`export-${which}`}>
      <div className="button-row">
        <button type="button" className="secondary" onClick={() => download('ds_config.json', files.dsConfigJson)}>
          ds_config.json
        </button>
        <button type="button" className="secondary" onClick={() => download('accelerate_config.yaml', files.accelerateYaml, 'text/yaml')}>
          accelerate_config.yaml
        </button>
      </div>
      {files.launch.map((l) => (
        <div key={l.launcher}>
          <span className="muted small">{l.launcher}</span>
          <pre className="code" data-testid={`launch-${which}-${l.launcher}`}>
            {l.line}
          </pre>
        </div>
      ))}
      {files.notes.map((n) => (
        <p key={n} className="muted small">
          {n}
        </p>
      ))}
    </div>
  );
}

function Result({ r, exports }: { r: UserConfigPlan; exports: { yours: LaunchExport; tuned: LaunchExport | null } }) {
  const m = r.mapping;
  const y = r.yours;
  // the machine this config was planned for (the machine choice when it was dropped), not the page's last plan
  const hostId = useHostId();
  const target = planTarget(r.plan, hostId);
  const { start, starting } = useEngine();
  const go = useApp((s) => s.go);
  const predicted = y && y.fits && hasPrediction(y.predicted) ? y.predicted : null;
  return (
    <div className="stack" data-testid="user-config-result">
      <p>
        <strong>{r.fileName}</strong> runs as{' '}
        <strong data-testid="user-config-strategy">
          {m.strategyId ? strategyLabel(m.strategyId) : 'a configuration the tuner does not model'}
        </strong>{' '}
        — micro batch {m.microBatch} × accumulation {m.gradAccum} × {m.worldSize} GPU(s) = {globalBatch(m)} per step (as DeepSpeed derives
        it), {m.precision}.
      </p>
      {m.unmodelled && (
        <p className="notice small" data-testid="user-config-unmodelled">
          Prediction unavailable: {m.unmodelled}
        </p>
      )}
      {y && (
        <p data-testid="user-config-verdict">
          <strong>{y.fit?.verdict === 'edge' ? 'At the edge' : y.fits ? 'Fits' : 'Does not fit'}</strong>:{' '}
          {y.reason.replace(/^(fits|does not fit|at the edge):\s*/i, '').replace(/\.?$/, '.')}
          {predicted && (
            <>
              {' '}
              Predicted <strong data-testid="user-config-prediction">{formatNumber(predicted.stepSeconds, 3)} s/step</strong>,{' '}
              {formatNumber(predicted.tflopsPerGpu, 1)} TFLOPS/GPU, {formatNumber(predicted.tokensPerSecond, 0)} tokens/s (GPU{' '}
              {formatBytes(y.memory.gpuBytes)}, host {formatBytes(y.memory.hostBytes)}).
            </>
          )}
        </p>
      )}
      {r.resolved.length > 0 && (
        <details>
          <summary>{r.resolved.length} "auto" value(s) filled</summary>
          <table className="table small">
            <tbody>
              {r.resolved.map((a) => (
                <tr key={a.key}>
                  <td>
                    <code>{a.key}</code>
                  </td>
                  <td>{show(a.value)}</td>
                  <td className="muted">{a.from}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {m.notes.length > 0 && (
        <ul className="small" data-testid="user-config-notes">
          {m.notes.map((n) => (
            <li key={n.key + n.kind}>
              <code>{n.key}</code> <span className="muted">({n.kind})</span>: {n.message}
            </li>
          ))}
        </ul>
      )}
      {r.tuned ? (
        <div data-testid="user-config-tuned">
          <p>
            Tuned alternative: <strong>{strategyLabel(r.tuned.strategyId)}</strong>, micro {r.tuned.microBatch} × accumulation{' '}
            {r.tuned.gradAccum} — predicted {formatNumber(r.tuned.predicted.tokensPerSecond, 0)} tokens/s
            {r.tuned.predictedGain ? (
              <strong data-testid="user-config-gain">, {formatNumber(r.tuned.predictedGain, 2)}× yours (predicted)</strong>
            ) : null}
            {r.measured?.gain ? (
              <strong>; measured here {formatNumber(r.measured.gain, 2)}×</strong>
            ) : (
              ' — not measured here yet: run yours and tune to measure it'
            )}
            .
          </p>
          <table className="table small" data-testid="user-config-diff">
            <thead>
              <tr>
                <th>key</th>
                <th>yours</th>
                <th>tuned</th>
              </tr>
            </thead>
            <tbody>
              {r.tuned.diff.map((d) => (
                <tr key={d.key}>
                  <td>
                    <code>{d.key}</code>
                  </td>
                  <td>{show(d.yours)}</td>
                  <td>{show(d.tuned)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">No DeepSpeed configuration is predicted to fit on this machine: there is no tuned alternative to offer.</p>
      )}
      <div className="button-row">
        <button
          type="button"
          disabled={starting || !target.here}
          title={target.reason ?? undefined}
          data-testid="run-user-config"
          onClick={async () => {
            if (await start({ specs: [r.spec], repeats: 1, steps: 10, warmup: 3 })) go('run');
          }}
        >
          Run your config here
        </button>
        {!target.here && <span className="muted small">{target.reason}</span>}
      </div>
      <h4>Your config, for your training</h4>
      <Exports which="yours" files={exports.yours} />
      {exports.tuned && (
        <>
          <h4>The tuned config</h4>
          <Exports which="tuned" files={exports.tuned} />
        </>
      )}
    </div>
  );
}

export function YourConfig() {
  const state = usePlan();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; refused: boolean } | null>(null);
  const [result, setResult] = useState<{ plan: UserConfigPlan; exports: { yours: LaunchExport; tuned: LaunchExport | null } } | null>(null);
  const [over, setOver] = useState(false);

  async function take(file: File) {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const text = await file.text();
      const w = overrides(state);
      const auto = autoBatchKeys(text);
      // the form's workload (every declared option), the batch only where the file leaves it "auto"
      const { microBatch, gradAccum, ...rest } = w;
      const workload = { ...rest, ...(auto.micro ? { microBatch } : {}), ...(auto.accum ? { gradAccum } : {}) };
      const choice = state.machine;
      const plan = await api.invoke('plan/user-config', {
        config: { fileName: file.name, text },
        workload,
        ...(choice.kind === 'this' ? {} : { machine: choice.machine }),
      });
      const yours = await api.invoke('plan/launch-export', { spec: plan.spec });
      const tuned = plan.tuned ? await api.invoke('plan/launch-export', { spec: plan.tuned.spec }) : null;
      setResult({ plan, exports: { yours, tuned } });
    } catch (e) {
      const { field, code } = e as { field?: string; code?: string };
      const message = (e as Error).message;
      // the file's or the form's own fault (a refusal naming what to fix), not the app's
      setError({
        message: `${message}${field && !message.includes(field) ? ` (${field})` : ''}`,
        refused: code === 'bad_config' || code === 'bad_request' || code === 'bad_workload',
      });
    } finally {
      setBusy(false);
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) void take(file);
  };

  return (
    <Card title="Your DeepSpeed config">
      <div
        className={`drop-zone${over ? ' over' : ''}`}
        data-testid="ds-config-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>
          Drop a <code>ds_config.json</code> here — plain, or an HF Trainer / accelerate one with <code>"auto"</code> values — or{' '}
          <label className="link">
            choose a file
            <input
              type="file"
              accept=".json,application/json"
              data-testid="ds-config-file"
              hidden
              onChange={(e) => e.target.files?.[0] && void take(e.target.files[0])}
            />
          </label>
          . It is planned for the model, sequence and GPUs of the form above, on the machine chosen there.
        </p>
        {busy && <p className="muted">Reading your config…</p>}
      </div>
      {error && <ErrorBox message={error.message} title={error.refused ? 'This config cannot be planned.' : undefined} />}
      {result && <Result r={result.plan} exports={result.exports} />}
    </Card>
  );
}
