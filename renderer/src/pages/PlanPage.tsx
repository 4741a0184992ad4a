// Plan: for a workload, every strategy's memory fit, predicted speed and generated config,
// and the tuner's recommendation. From here a sweep of the chosen strategies starts.
import { useEffect } from 'react';
import { MachineChoice } from './plan/MachineChoice';
import { PlanCharts } from './plan/PlanCharts';
import { Recommendation } from './plan/Recommendation';
import { RunControls } from './plan/RunControls';
import { StrategyTable } from './plan/StrategyTable';
import { WorkloadForm } from './plan/WorkloadForm';
import { formatParams } from '../format';
import { TunePanel } from './plan/TunePanel';
import { YourConfig } from './plan/YourConfig';
import { useHardware } from '../stores/hardware';
import { Card, EmptyState, ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { usePlan, workloadKey } from '../stores/plan';

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
