// Every strategy's row of the plan: verdict, memory, predicted speed, and the config a run of it executes.
import { Fragment, useState } from 'react';
import { rowPrediction } from '../../../../electron/contract/charts/plan-charts';
import { fitVerdict, strategyLabel, verdictWords, type FitVerdict } from '../../../../electron/contract/charts/labels';
import { hasPrediction, NO_PREDICTION, NO_PREDICTION_WHY } from '../../../../electron/contract/format';
import { type StrategyPlan } from '../../../../electron/contract';
import { formatBytes, formatNumber } from '../../format';
import { usePlan } from '../../stores/plan';
import { StrategyName } from './StrategyName';

/** The badge of each verdict: at the edge is neither a fit nor a failure (a short trial tells). */
const VERDICT_BADGE: Record<FitVerdict, string> = { fits: 'badge-completed', edge: 'badge-edge', 'does-not-fit': 'badge-failed' };

function ConfigView({ strategy }: { strategy: StrategyPlan }) {
  // The config of the strategy's spec: what a run of it executes (searched micro batch, knobs).
  const text = JSON.stringify(strategy.spec.dsConfig ?? strategy.spec.fsdp, null, 2);
  const [copied, setCopied] = useState(false);
  return (
    <div className="config-view">
      <div className="config-actions">
        <span className="muted">{strategy.engine === 'deepspeed' ? 'ds_config.json' : 'runner fsdp block'}</span>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            await navigator.clipboard?.writeText(text).catch(() => undefined);
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {!strategy.validation.ok && (
        <ul className="warnings">
          {strategy.validation.errors.map((e) => (
            <li key={e.field}>
              <code>{e.field}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
      <pre className="code">{text}</pre>
    </div>
  );
}

export function StrategyTable({ selectable = true }: { selectable?: boolean }) {
  const { plan, selected, toggle } = usePlan();
  const [open, setOpen] = useState<string | null>(null);
  if (!plan) return null;
  // A reason shared by three or more strategies (no GPU here, say) is said once, above the table.
  const counts = new Map<string, number>();
  for (const s of plan.strategies) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  const shared = [...counts].filter(([, n]) => n >= 3).map(([r]) => r);
  return (
    <>
      {shared.map((r) => (
        <p key={r} className="muted small" data-testid="shared-reason">
          {counts.get(r) === plan.strategies.length ? 'Every strategy' : `${counts.get(r)} strategies`}: {r}
        </p>
      ))}
      <table className="table" data-testid="strategy-table">
        <thead>
          <tr>
            {selectable && <th>Run</th>}
            <th>Strategy</th>
            <th>Fits</th>
            <th>GPU / GPU</th>
            <th>Host</th>
            <th>NVMe</th>
            <th>Runs with</th>
            <th>Step (s)</th>
            <th>TFLOPS / GPU</th>
            <th>Config</th>
          </tr>
        </thead>
        <tbody>
          {plan.strategies.map((s) => (
            <Fragment key={s.id}>
              <tr
                data-testid={`strategy-${s.id}`}
                data-verdict={fitVerdict(s)}
                className={s.id === plan.recommended?.strategyId ? 'recommended' : undefined}
              >
                {selectable && (
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`run ${strategyLabel(s.id)}`}
                      checked={selected.includes(s.id)}
                      onChange={() => toggle(s.id)}
                    />
                  </td>
                )}
                <td>
                  <StrategyName id={s.id} strong />
                  {!shared.includes(s.reason) && <div className="muted small">{s.reason}</div>}
                  {s.warnings.map((w) => (
                    <div key={w} className="small warn-text">
                      {w}
                    </div>
                  ))}
                </td>
                <td>
                  {/* fits / at the edge / does not fit: the chart's and the CLI's words (contract verdictWords) */}
                  <span className={`badge ${VERDICT_BADGE[fitVerdict(s)]}`} data-testid="strategy-verdict">
                    {verdictWords(s, plan.profile.gpuCount)}
                  </span>
                </td>
                {/* No GPU here: a CPU run has no GPU memory to predict (the run page's, reports' and CSV's answer). */}
                {plan.profile.gpuCount === 0 ? (
                  <td data-testid="strategy-gpu" title={NO_PREDICTION_WHY}>
                    {NO_PREDICTION}
                  </td>
                ) : (
                  <td data-testid="strategy-gpu">{formatBytes(s.memory.gpuBytes)}</td>
                )}
                <td data-testid="strategy-host">{formatBytes(s.memory.hostBytes)}</td>
                <td>{s.memory.nvmeBytes ? formatBytes(s.memory.nvmeBytes) : '—'}</td>
                <td className="small" data-testid="spec-knobs" data-micro-batch={s.spec.microBatch} data-config-hash={s.spec.configHash}>
                  micro batch {s.spec.microBatch}
                  {/* The knobs in words; the config's own names are in its title and in the config view. */}
                  {s.spec.knobs.cpuadamCoresPerc !== undefined ? (
                    <span title={`cpuadam_cores_perc ${s.spec.knobs.cpuadamCoresPerc}`}>
                      , {Math.round(s.spec.knobs.cpuadamCoresPerc * 100)} % of cores on the CPU optimizer
                    </span>
                  ) : (
                    ''
                  )}
                  {s.spec.knobs.ratio !== undefined ? (
                    <span title={`ratio ${s.spec.knobs.ratio}`}>
                      , {Math.round(s.spec.knobs.ratio * 100)} % of the optimizer on the CPU
                    </span>
                  ) : (
                    ''
                  )}
                  {s.spec.prediction && plan.profile.gpuCount > 0 && s.spec.microBatch !== plan.workload.microBatch && (
                    <div className="muted">
                      at that batch: {formatBytes(s.spec.prediction.gpuPeakBytes)} / GPU, {formatBytes(s.spec.prediction.hostPeakBytes)}{' '}
                      host
                    </div>
                  )}
                </td>
                {/* The prediction of the spec that runs (its micro batch and knobs), kept with the run. */}
                {/* A strategy that does not fit has no speed: "—", not 0.00 s; a CPU smoke run has no prediction: "—" too, not 0. */}
                <PredictedCells fits={s.fits} prediction={rowPrediction(s)} />
                <td>
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => setOpen(open === s.id ? null : s.id)}
                    aria-expanded={open === s.id}
                  >
                    {open === s.id ? 'Hide' : 'Open'}
                  </button>
                </td>
              </tr>
              {open === s.id && (
                <tr>
                  <td colSpan={selectable ? 10 : 9}>
                    <ConfigView strategy={s} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Step time and TFLOPS of one plan row: "—" where it does not fit, or where nothing was predicted (CPU smoke run). */
function PredictedCells({ fits, prediction }: { fits: boolean; prediction: { stepSeconds: number; tflopsPerGpu: number } }) {
  if (fits && !hasPrediction(prediction))
    return (
      <>
        <td data-testid="strategy-step" title={NO_PREDICTION_WHY}>
          {NO_PREDICTION}
        </td>
        <td data-testid="strategy-tflops" title={NO_PREDICTION_WHY}>
          {NO_PREDICTION}
        </td>
      </>
    );
  return (
    <>
      <td data-testid="strategy-step">{fits ? formatNumber(prediction.stepSeconds, 2) : '—'}</td>
      <td data-testid="strategy-tflops">{fits ? formatNumber(prediction.tflopsPerGpu) : '—'}</td>
    </>
  );
}
