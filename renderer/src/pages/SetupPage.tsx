// Setup: the guided wizard (first run, re-openable). A stepper shows where you are; every step's
// progress is saved in the data folder, so closing the app resumes where you left.
import { useEffect, type ReactElement } from 'react';
import { wizardSteps, type WizardStep } from '../../../electron/contract';
import { ErrorBox, PageHeader, Skeleton } from '../components/ui';
import { useApp } from '../stores/app';
import { useWizard } from '../stores/wizard';
import { EnvironmentStep } from './setup/EnvironmentStep';
import { HardwareStep, MeasureStep, PlanStep, RunStep, WelcomeStep, WorkloadStep } from './setup/steps';

const LABELS: Record<WizardStep, string> = {
  welcome: 'Welcome',
  hardware: 'Hardware',
  environment: 'Engine',
  measure: 'Measure',
  workload: 'Workload',
  plan: 'Plan',
  run: 'Run',
};

export function SetupPage() {
  const { state, error, load, goTo, complete, restart } = useWizard();
  const go = useApp((s) => s.go);
  useEffect(() => {
    if (!state) void load();
  }, [state, load]);

  if (error) return <ErrorBox message={error} onRetry={() => void load()} />;
  if (!state)
    return (
      <div className="page">
        <Skeleton lines={6} />
      </div>
    );

  const step = state.step;
  const done = (patch?: { workload?: Record<string, unknown> }) => void complete(step, patch);
  const body: Record<WizardStep, ReactElement> = {
    welcome: <WelcomeStep done={done} />,
    hardware: <HardwareStep done={done} />,
    environment: <EnvironmentStep done={done} />,
    measure: <MeasureStep done={done} />,
    workload: <WorkloadStep done={done} saved={state.workload} />,
    plan: <PlanStep done={done} saved={state.workload} />,
    run: (
      <RunStep
        done={() => {
          void complete('run', { dismissed: true });
          go('run');
        }}
        leave={() => void complete('run', { dismissed: true })}
        saved={state.workload}
      />
    ),
  };

  return (
    <div className="page" data-testid="setup-wizard" data-wizard-step={step}>
      <PageHeader
        title="Setup"
        subtitle="From just installed to your first real comparison."
        actions={
          <button type="button" className="secondary" onClick={() => void restart()}>
            Start over
          </button>
        }
      />
      <ol className="stepper" aria-label="Setup steps">
        {wizardSteps.map((s, i) => {
          const reachable = state.completed.includes(s) || s === step || state.completed.includes(wizardSteps[i - 1]);
          return (
            <li key={s} className={s === step ? 'current' : state.completed.includes(s) ? 'completed' : undefined}>
              <button
                type="button"
                className="step-button"
                disabled={!reachable}
                aria-current={s === step ? 'step' : undefined}
                onClick={() => void goTo(s)}
              >
                <span className="step-number">{state.completed.includes(s) ? '✓' : i + 1}</span> {LABELS[s]}
              </button>
            </li>
          );
        })}
      </ol>
      {body[step]}
    </div>
  );
}
