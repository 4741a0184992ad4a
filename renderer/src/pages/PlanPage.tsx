// Plan: for a workload, every strategy's memory fit, predicted speed and generated config,
// and the tuner's recommendation. From here a sweep of the chosen strategies starts.
import { Fragment, useEffect, useMemo, useState } from 'react';
import { memoryOption, planChartHeight, predictedTflopsOption, rowPrediction } from '../../../electron/contract/charts/plan-charts';
import {
  fitVerdict,
  limitWords,
  strategyColor,
  strategyLabel,
  verdictWords,
  type FitVerdict,
} from '../../../electron/contract/charts/labels';
import { hasPrediction, NO_PREDICTION, NO_PREDICTION_WHY } from '../../../electron/contract/format';
import { DARK_THEME, LIGHT_THEME } from '../../../electron/contract/charts/compare-charts';
import {
  choicesOf,
  firstIssue,
  FORM_OPTION_KEYS,
  StartRunsRequestSchema,
  WORKLOAD_OPTIONS,
  type StrategyPlan,
} from '../../../electron/contract';
import { MachineChoice } from './plan/MachineChoice';
import { PlannedFor, usePlanTarget } from './plan/PlannedFor';
import { sweepEstimate } from './plan/estimate';
import { TunePanel } from './plan/TunePanel';
import { YourConfig } from './plan/YourConfig';
import { useHardware } from '../stores/hardware';
import { useSettings } from '../stores/settings';
import { isDarkTheme } from '../theme';
import { Chart } from '../components/Chart';
import { Card, EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { formatBytes, formatNumber } from '../format';
import { useApp } from '../stores/app';
import { useEngine } from '../stores/engine';
import { usePlan, workloadKey, type FormField } from '../stores/plan';

/** "1.2 B params", "42 M params": readable at every size (tiny-llama is not "0.000 B"). */
export function formatParams(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(n >= 1e10 ? 0 : 1)} B params`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)} M params`;
  return `${Math.round(n / 1e3)} K params`;
}

/** Why a strategy does not fit, in words (shared with the Plan TFLOPS chart). */
export { limitWords };

/** The badge of each verdict: at the edge is neither a fit nor a failure (a short trial tells). */
const VERDICT_BADGE: Record<FitVerdict, string> = { fits: 'badge-completed', edge: 'badge-edge', 'does-not-fit': 'badge-failed' };

/** The strategy's one display name, its colour, and its id as secondary text. */
export function StrategyName({ id, strong = false }: { id: string; strong?: boolean }) {
  const name = strategyLabel(id);
  return (
    <span className="strategy-name">
      <span className="swatch" style={{ background: strategyColor(id) }} aria-hidden="true" />
      {strong ? <strong>{name}</strong> : name}
      {name !== id && <span className="muted small strategy-id"> {id}</span>}
    </span>
  );
}

/** The contract's own check of a number field (its schema in workload-options.ts / StartRunsRequestSchema). */
type NumberSchema = { safeParse(v: unknown): { success: boolean; error?: Parameters<typeof firstIssue>[0] } };

const sentence = (s: string) => (s.endsWith('.') ? s : `${s}.`).replace(/^./, (c) => c.toUpperCase());

function problemOf(schema: NumberSchema, text: string, max?: { value: number; message: string }): string | null {
  if (text.trim() === '' || !Number.isFinite(Number(text))) return 'Enter a number.';
  const r = schema.safeParse(Number(text));
  if (!r.success) return r.error ? sentence(firstIssue(r.error).message) : 'Invalid.';
  return max && Number(text) > max.value ? max.message : null;
}

/**
 * What is typed is what is used: nothing is clamped; the contract's schema says what is wrong, next
 * to the field. A form field (`field`) tells the plan store, which then does not plan, and shows
 * the backend's complaint about it here too.
 */
function NumberField({
  label,
  value,
  schema,
  onChange,
  testId,
  field,
  max,
}: {
  label: string;
  value: number;
  schema: NumberSchema;
  onChange: (v: number) => void;
  testId?: string;
  field?: FormField;
  max?: { value: number; message: string };
}) {
  const [text, setText] = useState(String(value));
  useEffect(() => {
    // Only an outside change of the value (a preset, the machine's defaults) replaces the text.
    if (Number(text) !== value) setText(String(value));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- typing changes text; only a change of value may reset it
  }, [value]);
  const own = problemOf(schema, text, max);
  const setFieldProblem = usePlan((s) => s.setFieldProblem);
  const server = usePlan((s) => (field ? s.serverProblems[field] : undefined));
  useEffect(() => {
    if (!field) return;
    setFieldProblem(field, own);
    return () => setFieldProblem(field, null);
  }, [field, own, setFieldProblem]);
  const problem = own ?? server ?? null;
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type="number"
        value={text}
        aria-invalid={problem !== null}
        data-testid={testId}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() !== '' && Number.isFinite(Number(e.target.value))) onChange(Number(e.target.value));
        }}
      />
      {problem && (
        <span className="warn-text small" role="alert" data-testid={testId ? `${testId}-error` : undefined}>
          {problem}
        </span>
      )}
    </label>
  );
}

export function WorkloadForm() {
  const { presets, workload, setWorkload, imported, importConfig, importError, serverProblems } = usePlan();
  const models = [...(presets?.models ?? []), ...imported.map((m) => ({ ...m, params: 0 }))];
  const model = models.find((m) => m.id === workload.model);
  // The model's own limit (max_position_embeddings): 1,000,000 is not planned for a 131,072 model.
  const seqMax = model
    ? {
        value: model.maxPositionEmbeddings,
        message: `${model.label} reads at most ${model.maxPositionEmbeddings.toLocaleString('en-US')} positions (its max_position_embeddings): use a shorter sequence.`,
      }
    : undefined;
  return (
    <div className="form-grid" data-testid="workload-form">
      <label className="field wide">
        <span>Model</span>
        <select
          value={workload.model}
          onChange={(e) => setWorkload({ model: e.target.value })}
          data-testid="model-select"
          aria-invalid={serverProblems.model ? true : undefined}
        >
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
              {m.params ? ` — ${formatParams(m.params)}` : ' (imported)'}
            </option>
          ))}
        </select>
        {serverProblems.model && (
          <span className="warn-text small" role="alert" data-testid="model-error">
            {serverProblems.model}
          </span>
        )}
      </label>
      <label className="field wide">
        <span>…or import a Hugging Face config.json</span>
        <input
          type="file"
          accept=".json,application/json"
          data-testid="hf-import"
          onChange={async (e) => {
            const file = e.target.files?.[0];
            if (file) await importConfig(await file.text(), file.name);
          }}
        />
        {importError && (
          <span className="warn-text small" role="alert" data-testid="hf-import-error">
            {importError}
          </span>
        )}
      </label>
      {/* every option the contract declares a form field for (contract workload-options.ts), in its order */}
      {FORM_OPTION_KEYS.map((key) => {
        const o = WORKLOAD_OPTIONS[key];
        const value = workload[key];
        if (o.kind === 'switch')
          return (
            <label key={key} className="field checkbox">
              <input type="checkbox" checked={value === true} onChange={(e) => setWorkload({ [key]: e.target.checked })} />
              <span>{o.form.label}</span>
              {serverProblems[key] && (
                <span className="warn-text small" role="alert">
                  {serverProblems[key]}
                </span>
              )}
            </label>
          );
        if (o.kind === 'choice')
          return (
            <label key={key} className="field">
              <span>{o.form.label}</span>
              <select
                value={String(value)}
                onChange={(e) => setWorkload({ [key]: e.target.value })}
                data-testid={'testId' in o.form ? o.form.testId : undefined}
              >
                {choicesOf(o).map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
              {serverProblems[key] && (
                <span className="warn-text small" role="alert">
                  {serverProblems[key]}
                </span>
              )}
            </label>
          );
        return (
          <NumberField
            key={key}
            label={o.form.label}
            value={Number(value)}
            schema={o.value}
            onChange={(v) => setWorkload({ [key]: v })}
            testId={'testId' in o.form ? o.form.testId : undefined}
            field={key}
            max={key === 'seqLen' ? seqMax : undefined}
          />
        );
      })}
    </div>
  );
}

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

export function Recommendation() {
  const plan = usePlan((s) => s.plan);
  if (!plan) return null;
  const rec = plan.recommended;
  return (
    <Card title="Recommendation" testId="recommendation">
      {/* Which machine the plan is for, first (and, for another one, the way back to this one). */}
      <PlannedFor />
      {rec ? (
        <>
          <p className="headline">
            <strong>{strategyLabel(rec.strategyId)}</strong> at micro batch {rec.microBatch}
            {rec.cpuadamCoresPerc !== null
              ? `, ${Math.round(rec.cpuadamCoresPerc * 100)} % of the CPU cores on the optimizer step`
              : ''} —{' '}
            {rec.predicted.stepSeconds > 0
              ? `predicted ${formatNumber(rec.predicted.tflopsPerGpu)} TFLOPS/GPU, ${formatNumber(rec.predicted.stepSeconds, 2)} s/step.`
              : 'no GPU prediction (a CPU smoke run measures the engine, not GPU speed).'}
          </p>
          <p>{rec.reason}</p>
          {rec.knobReasons?.length ? (
            <ul className="knob-reasons" data-testid="knob-reasons">
              {rec.knobReasons.map((k) => (
                <li key={k}>{k}</li>
              ))}
            </ul>
          ) : null}
          {rec.runnerUp && (
            <p className="muted">
              Runner-up: {strategyLabel(rec.runnerUp.strategyId)} — {rec.runnerUp.reason}
            </p>
          )}
          {/* A much faster configuration just inside the model's memory error: named, not recommended unmeasured. */}
          {rec.edgeTrial && (
            <p data-testid="edge-trial">
              <strong>Fastest: one trial to confirm:</strong> {strategyLabel(rec.edgeTrial.strategyId)} at micro batch{' '}
              {rec.edgeTrial.microBatch} — {rec.edgeTrial.reason}. Use Tune below: it runs this first.
            </p>
          )}
        </>
      ) : (
        <p>Nothing fits this machine for this workload. Lower the sequence length or micro batch, add GPUs, or pick a smaller model.</p>
      )}
      {plan.strategies[0]?.predicted.formula && <p className="muted small">{plan.strategies[0].predicted.formula}</p>}
      {/* How the figures were made (sources, calibration): there for whoever checks, folded so the card reads plainly. */}
      {plan.notes.length > 0 && (
        <details className="muted small plan-notes">
          <summary>How these figures were computed</summary>
          {plan.notes.map((n) => (
            <p key={n}>{n}</p>
          ))}
        </details>
      )}
    </Card>
  );
}

export function PlanCharts() {
  const plan = usePlan((s) => s.plan);
  // The page's theme (light, dark, or the system's): the one reading in renderer/src/theme.ts.
  const theme = isDarkTheme() ? DARK_THEME : LIGHT_THEME;
  const tflops = useMemo(() => (plan ? predictedTflopsOption(plan, theme) : null), [plan, theme]);
  const memory = useMemo(() => (plan ? memoryOption(plan, theme) : null), [plan, theme]);
  if (!plan || !tflops || !memory) return null;
  const height = planChartHeight(plan.strategies.length);
  return (
    <div className="plan-charts">
      <Card title="Predicted model TFLOPS per GPU">
        <Chart option={tflops} height={height} testId="chart-predicted-tflops" ariaLabel="Predicted TFLOPS per strategy" />
      </Card>
      <Card title="Memory per resource">
        <Chart
          option={memory}
          height={height + 14}
          testId="chart-memory"
          ariaLabel="Memory per strategy and resource, each against its capacity"
        />
      </Card>
    </div>
  );
}

export function RunControls({ onStarted }: { onStarted?: () => void }) {
  const { plan, selected } = usePlan();
  const { start, starting, error } = useEngine();
  const go = useApp((s) => s.go);
  // Only a plan for this machine runs here: another machine's specs and host figures are not this host's.
  const target = usePlanTarget();
  // Settings' defaults (steps, warm-up, repeats) until the user changes them here.
  const defaults = useSettings((s) => s.view?.settings);
  const [steps, setSteps] = useState<number | null>(null);
  const [warmup, setWarmup] = useState<number | null>(null);
  const [repeats, setRepeats] = useState<number | null>(null);
  if (!plan) return null;
  const runSteps = steps ?? defaults?.defaultSteps ?? 10;
  const runWarmup = warmup ?? defaults?.defaultWarmupSteps ?? 3;
  const runRepeats = repeats ?? defaults?.defaultRepeats ?? 1;
  // Exactly the plan's specs of the chosen strategies: what the table shows is what runs.
  const specs = selected.map((id) => plan.strategies.find((s) => s.id === id)?.spec).filter((s) => s !== undefined);
  // The request's own checks: a sweep the backend would refuse is not offered.
  const runValid = [
    StartRunsRequestSchema.shape.steps.safeParse(runSteps),
    StartRunsRequestSchema.shape.warmup.safeParse(runWarmup),
    StartRunsRequestSchema.shape.repeats.safeParse(runRepeats),
  ].every((r) => r.success);
  return (
    <Card title="Run the comparison">
      <div className="form-grid">
        <NumberField
          label="Measured steps"
          value={runSteps}
          schema={StartRunsRequestSchema.shape.steps}
          onChange={setSteps}
          testId="run-steps"
        />
        <NumberField
          label="Warm-up steps"
          value={runWarmup}
          schema={StartRunsRequestSchema.shape.warmup}
          onChange={setWarmup}
          testId="run-warmup"
        />
        <NumberField
          label="Repeats"
          value={runRepeats}
          schema={StartRunsRequestSchema.shape.repeats}
          onChange={setRepeats}
          testId="run-repeats"
        />
      </div>
      {specs.length > 0 && (
        <p className="small" data-testid="sweep-summary">
          Will run {selected.map((id) => strategyLabel(id)).join(', ')}
          {runRepeats > 1 ? `, ${runRepeats} times each` : ''} —{' '}
          {sweepEstimate(specs, runSteps, runWarmup, runRepeats, plan.engineStart, plan.measuredSteps)}.
        </p>
      )}
      {error && <ErrorBox message={error} />}
      {target?.reason && (
        <p className="warn-text small" role="note" data-testid="run-blocked">
          {target.reason}
        </p>
      )}
      <button
        type="button"
        data-testid="start-sweep"
        disabled={starting || specs.length === 0 || !runValid || !!target?.reason}
        title={target?.reason ?? undefined}
        onClick={async () => {
          const ok = await start({ specs, repeats: runRepeats, steps: runSteps, warmup: runWarmup });
          if (ok) {
            onStarted?.();
            go('run');
          }
        }}
      >
        {starting ? 'Starting…' : `Run ${selected.length} strateg${selected.length === 1 ? 'y' : 'ies'} × ${runRepeats}`}
      </button>
    </Card>
  );
}

export function PlanPage() {
  const {
    presets,
    presetsError,
    loadPresets,
    plan,
    computing,
    error,
    compute,
    computeScenario,
    scenario,
    fitToMachine,
    fieldProblems,
    plannedFor,
    workload,
  } = usePlan();
  const blocked = Object.keys(fieldProblems).length > 0;
  const stale = plan !== null && !scenario && plannedFor !== null && plannedFor !== '' && plannedFor !== workloadKey(workload);
  const { machine, detect } = useHardware();
  useEffect(() => {
    void loadPresets();
  }, [loadPresets]);
  // Defaults that fit this machine (its GPU count; no GPU → the tiny preset) until the user chooses.
  useEffect(() => {
    if (!machine) void detect();
    else fitToMachine(machine);
  }, [machine, detect, fitToMachine]);

  return (
    <div className="page">
      <PageHeader title="Plan" subtitle="What fits and what will be fastest — before you spend an hour finding out." />
      {presetsError && <ErrorBox message={presetsError} onRetry={() => void loadPresets()} />}
      {!presets && !presetsError && <Skeleton lines={4} />}
      {presets && (
        <>
          <Card title="Workload">
            <MachineChoice />
            <WorkloadForm />
            <div className="button-row">
              <button
                type="button"
                onClick={() => void compute()}
                disabled={computing || blocked}
                data-testid="compute-plan"
                title={blocked ? 'Correct the marked field first' : undefined}
              >
                {computing ? 'Planning…' : 'Plan every strategy'}
              </button>
              {presets.scenarios.map((s) => (
                <button
                  key={s.id}
                  type="button"
                  className="secondary"
                  onClick={() => void computeScenario(s.id)}
                  disabled={computing}
                  title={s.description}
                  data-testid={`scenario-${s.id}`}
                >
                  {s.label}
                </button>
              ))}
            </div>
            {blocked && (
              <p className="warn-text small" data-testid="form-blocked">
                Correct the marked field to plan.
              </p>
            )}
            {scenario && <p className="muted small">Scenario: {presets.scenarios.find((s) => s.id === scenario)?.description}</p>}
          </Card>
          <div className="stack-gap">
            <YourConfig />
          </div>
          {error && <ErrorBox message={error} />}
          {!plan && !error && (
            <EmptyState title="No plan yet">
              <p>Choose a model and batch, then plan every strategy — or open the seed scenario in one click.</p>
            </EmptyState>
          )}
          {plan && stale && (
            <p className="notice small" data-testid="plan-stale">
              The workload changed since this plan was made: the results below are for the previous one — plan again to update them.
            </p>
          )}
          {plan && (
            <div className="stack" data-testid="plan-result" data-stale={stale ? 'true' : undefined}>
              <Recommendation />
              <PlanCharts />
              <Card title={`Every strategy — ${plan.model.label}, ${formatParams(plan.params)}`}>
                <StrategyTable />
              </Card>
              <RunControls />
              <TunePanel />
            </div>
          )}
        </>
      )}
    </div>
  );
}
