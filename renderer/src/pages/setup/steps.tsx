// The wizard's steps other than the engine environment (EnvironmentStep.tsx). Each step does its
// work through the contract client and calls `done` to move on; nothing here is simulated.
import { useEffect, useState } from 'react';
import { MeasurementFigures } from '../../components/MeasurementFigures';
import { ProgressBar } from '../../components/Progress';
import { TopologyView } from '../../components/TopologyView';
import { Card, ErrorBox, KeyValues, Skeleton } from '../../components/ui';
import { formatBytes } from '../../format';
import { useHardware } from '../../stores/hardware';
import { useMeasure } from '../../stores/measure';
import { usePlan, workloadKey, type WorkloadForm as WorkloadValues } from '../../stores/plan';
import { Recommendation } from '../plan/Recommendation';
import { RunControls } from '../plan/RunControls';
import { StrategyTable } from '../plan/StrategyTable';
import { WorkloadForm } from '../plan/WorkloadForm';
import { TunePanel } from '../plan/TunePanel';
import { MachineChoice } from '../plan/MachineChoice';
import { PlannedFor } from '../plan/PlannedFor';

export interface StepProps {
  done(patch?: { workload?: Record<string, unknown> }): void;
}

export function WelcomeStep({ done }: StepProps) {
  return (
    <Card title="Welcome to Offload Studio">
      <p>
        In a few steps this finds out which DeepSpeed offload strategy trains your model fastest on this machine — and proves it with real
        runs.
      </p>
      <ol>
        <li>Detect the hardware: cores, NUMA, memory, GPUs and the links between them.</li>
        <li>Find or create the Python environment that holds torch and DeepSpeed.</li>
        <li>Measure the host: CPU Adam speed per thread count, memory bandwidth, host↔GPU copies, torch's CPU AdamW (FSDP2).</li>
        <li>Pick a workload, see every strategy's fit and predicted speed, and run the comparison.</li>
      </ol>
      <p className="muted">
        What it needs: a Python 3.10–3.13 with torch and DeepSpeed (the app can create one, ~5 GB download), and for real GPU numbers an
        NVIDIA GPU. Without a GPU you can still plan for another machine and run the CPU path on a tiny model.
      </p>
      <button type="button" onClick={() => done()} data-testid="wizard-next">
        Start
      </button>
    </Card>
  );
}

export function HardwareStep({ done }: StepProps) {
  const { machine, loading, error, detect } = useHardware();
  useEffect(() => {
    if (!machine) void detect();
  }, [machine, detect]);
  if (error) return <ErrorBox message={error} onRetry={() => void detect(true)} />;
  if (!machine || loading) return <Skeleton lines={6} />;
  return (
    <Card title="Your machine">
      <KeyValues
        rows={[
          ['CPU', <span data-testid="cpu-model">{machine.cpu.model}</span>],
          [
            'Cores',
            `${machine.cpu.physicalCores} physical / ${machine.cpu.logicalCores} logical, ${machine.cpu.numaNodes.length || 1} NUMA node(s)`,
          ],
          ['Memory', formatBytes(machine.memory.totalBytes)],
          ['GPUs', machine.gpus.length ? machine.gpus.map((g) => g.name).join(', ') : `none — ${machine.gpuStatus.message}`],
        ]}
      />
      {machine.topology && machine.topology.nodes.length > 0 && <TopologyView topology={machine.topology} />}
      <h3>What matters for offload here</h3>
      {machine.warnings.length === 0 ? (
        <p className="muted">Nothing to warn about.</p>
      ) : (
        <ul className="warnings" data-testid="wizard-warnings">
          {machine.warnings.map((w) => (
            <li key={w.id} className={`severity-${w.severity}`}>
              {w.message} <span className="muted">— {w.fix}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="button-row">
        <button type="button" onClick={() => done()} data-testid="wizard-next">
          Continue
        </button>
        <button type="button" className="secondary" onClick={() => void detect(true)}>
          Detect again
        </button>
      </div>
    </Card>
  );
}

export function MeasureStep({ done }: StepProps) {
  const { result: fresh, stored, storedLoaded, loadStored, running, progress, startedAt, error, measure, cancel } = useMeasure();
  const [budget, setBudget] = useState(30);
  // Resumed at this step (a reload, a restart): the measurement stored for this machine is shown, not
  // "Measure now / Skip" as if none had been made.
  useEffect(() => {
    if (!storedLoaded) void loadStored();
  }, [storedLoaded, loadStored]);
  const result = fresh ?? stored;
  return (
    <Card title="Measure the host">
      <p>
        CPU offload is as fast as the CPU Adam step and the host↔GPU copies. This measures them natively and picks{' '}
        <code>cpuadam_cores_perc</code> for SuperOffload from the knee of the curve.
      </p>
      {running && (
        <>
          <ProgressBar
            fraction={progress?.fraction ?? 0}
            label={progress?.message ?? 'Starting…'}
            startedAt={startedAt}
            testId="measure-progress"
          />
          <button type="button" className="danger" onClick={() => void cancel()}>
            Cancel
          </button>
        </>
      )}
      {error && <ErrorBox message={error} />}
      {result && <MeasurementFigures measurement={result} />}
      <div className="button-row">
        {!running && (
          <select value={budget} onChange={(e) => setBudget(Number(e.target.value))} aria-label="Time budget" data-testid="measure-budget">
            {/* The budget is the measuring; starting torch for its AdamW and a busy machine add to it (a
                "standard (30 s)" took 53 s on a shared 2-core VM): said as a budget, the time taken shown after. */}
            <option value={10}>quick (10 s budget)</option>
            <option value={30}>standard (30 s budget)</option>
            <option value={90}>thorough (90 s budget)</option>
          </select>
        )}
        {!running && (
          <button
            type="button"
            className={result ? 'secondary' : undefined}
            onClick={() => void measure(budget)}
            data-testid="measure-start"
          >
            {result ? 'Measure again' : 'Measure now'}
          </button>
        )}
        <button
          type="button"
          className={result ? undefined : 'secondary'}
          onClick={() => done()}
          disabled={running}
          data-testid="wizard-next"
        >
          {result ? 'Continue' : 'Skip (use catalogued figures)'}
        </button>
      </div>
    </Card>
  );
}

export function WorkloadStep({ done, saved }: StepProps & { saved: Record<string, unknown> | null }) {
  const { presets, loadPresets, presetsError, setWorkload, workload, fitToMachine, fieldProblems, machine: choice, setMachine } = usePlan();
  const machine = useHardware((s) => s.machine);
  const detect = useHardware((s) => s.detect);
  useEffect(() => {
    void loadPresets();
  }, [loadPresets]);
  // Resumed at this step (a reload, a restart): the Hardware step did not run in this window, so
  // detect here — the defaults below need the machine.
  useEffect(() => {
    if (!machine) void detect();
  }, [machine, detect]);
  // Defaults that fit this machine (its GPU count; no GPU → the tiny preset) unless a workload was chosen.
  useEffect(() => {
    if (!saved) fitToMachine(machine);
  }, [machine, saved, fitToMachine]);
  useEffect(() => {
    if (saved) setWorkload(saved as Partial<WorkloadValues>);
  }, [saved, setWorkload]);
  if (presetsError) return <ErrorBox message={presetsError} onRetry={() => void loadPresets()} />;
  if (!presets) return <Skeleton lines={4} />;
  return (
    <Card title="What do you want to train?">
      {/* Which machine the plan will be for, as a control (the Plan page's own): always said, never
          planned for silently. Only a plan for this machine can be run from the next steps. */}
      <MachineChoice />
      {choice.kind !== 'this' && (
        <p className="notice small" data-testid="wizard-plan-for">
          <span>
            Will plan for: <strong>{choice.label}</strong>,{' '}
            {choice.kind === 'file' ? 'a loaded file' : choice.kind === 'history' ? 'a machine seen in history' : 'a catalogued machine'} —
            not this machine: its plan cannot be run or tuned here.
          </span>{' '}
          <button type="button" className="secondary" onClick={() => setMachine({ kind: 'this' })} data-testid="wizard-plan-this-machine">
            Plan for this machine instead
          </button>
        </p>
      )}
      <WorkloadForm />
      <button
        type="button"
        onClick={() => done({ workload: { ...workload } })}
        disabled={Object.keys(fieldProblems).length > 0}
        data-testid="wizard-next"
      >
        Plan it
      </button>
    </Card>
  );
}

export function PlanStep({ done, saved }: StepProps & { saved: Record<string, unknown> | null }) {
  const { plan, compute, error, serverProblems } = usePlan();
  // Plan once on entering the step, for the workload chosen in step 5 (also after a restart).
  useEffect(() => {
    if (saved) usePlan.getState().setWorkload(saved as Partial<WorkloadValues>);
    void compute();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- plan once on entering the step (the comment above), not when saved/compute change
  }, []);
  if (error) return <ErrorBox message={error} onRetry={() => void compute()} />;
  // A workload field the backend refused: said here, with the way back to the form.
  const refused = Object.entries(serverProblems);
  if (refused.length)
    return (
      <ErrorBox
        message={`The workload needs a change: ${refused.map(([f, m]) => `${f}: ${m}`).join('; ')} Go back to the Workload step to change it.`}
      />
    );
  if (!plan) return <Skeleton lines={6} />;
  return (
    <div className="stack" data-testid="wizard-plan">
      <Recommendation />
      <Card title="Strategies to compare (preselected: the recommendation, its runner-up and others that fit)">
        <StrategyTable />
      </Card>
      <button type="button" onClick={() => done()} data-testid="wizard-next">
        Continue to run
      </button>
    </div>
  );
}

/**
 * The wizard's last step: run the chosen strategies side by side (the Run page then names the
 * winner, with Compare these / Report), or tune (short trials of the most promising configurations,
 * the winner named here with the same two buttons). Each says what will run and roughly how long.
 */
export function RunStep({ done, leave, saved }: StepProps & { leave(): void; saved: Record<string, unknown> | null }) {
  // Resumed at this step (a reload, a restart, another browser): the plan is rebuilt for the workload
  // the wizard stored, so the comparison card is back and Tune runs that workload — once, Tune ran the
  // Plan page's default (llama-3.2-3b, seq 2048) while wizard.json held tiny-llama at 128.
  useEffect(() => {
    if (!saved) return;
    const plan = usePlan.getState();
    const stored = saved as Partial<WorkloadValues>;
    if (plan.plan && plan.plannedFor === workloadKey({ ...plan.workload, ...stored })) return;
    plan.setWorkload(stored);
    void plan.compute();
  }, [saved]);
  return (
    <div className="stack" data-testid="wizard-run">
      <p className="muted">
        Two ways to find out: run the strategies chosen in the plan side by side, or let Tune try the most promising configurations for you.
      </p>
      <PlannedFor />
      <RunControls onStarted={() => done()} />
      <TunePanel title="…or tune: short trials of the most promising configurations" onLeave={leave} />
    </div>
  );
}
