// Starting a sweep of the selected strategies, with its estimated length, here or as jobs of a saved
// Slurm target (runs/start's `slurm`).
import { useEffect, useState } from 'react';
import { strategyLabel } from '../../../../electron/contract/charts/labels';
import { StartRunsRequestSchema } from '../../../../electron/contract';
import { usePlanTarget } from './PlannedFor';
import { sweepEstimate } from './estimate';
import { useSettings } from '../../stores/settings';
import { Card, ErrorBox } from '../../components/ui';
import { useApp } from '../../stores/app';
import { useEngine } from '../../stores/engine';
import { usePlan } from '../../stores/plan';
import { useSlurm } from '../../stores/slurm';
import { NumberField } from './NumberField';

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
  // '' runs here; a name runs every spec as a job of that saved Slurm target.
  const [runOn, setRunOn] = useState('');
  const slurmTargets = useSlurm((s) => s.targets);
  const slurmLoaded = useSlurm((s) => s.loaded);
  const loadSlurm = useSlurm((s) => s.load);
  useEffect(() => {
    if (!slurmLoaded) void loadSlurm();
  }, [slurmLoaded, loadSlurm]);
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
      {slurmTargets.length > 0 && (
        <label className="small">
          <span>Run on </span>
          <select value={runOn} onChange={(e) => setRunOn(e.target.value)} data-testid="run-on">
            <option value="">this machine</option>
            {slurmTargets.map(({ target: t }) => (
              <option key={t.name} value={t.name}>
                Slurm {t.name} — partition {t.partition}, {t.nodes} node(s) × {t.gpusPerNode} GPU(s)
              </option>
            ))}
          </select>
        </label>
      )}
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
          const ok = await start({ specs, repeats: runRepeats, steps: runSteps, warmup: runWarmup, ...(runOn ? { slurm: runOn } : {}) });
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
