// The machine a plan is for, said wherever the plan is shown (the Plan page, the wizard's plan and
// run steps), and whether it can run here. A plan for a loaded `detect --json` or a catalogued
// machine predicts that machine: its runs, its host memory figure, its tune — none of it describes
// this host (once, a 3B ZeRO-1 planned for a loaded H200 was started on a CPU box). Run and
// Tune are offered only for a plan of this machine; otherwise they say why, and one click plans
// the same workload for this machine.
import type { PlanResult } from '../../../../electron/contract';
import { useHardware } from '../../stores/hardware';
import { usePlan } from '../../stores/plan';

export interface PlanTarget {
  label: string;
  source: PlanResult['profile']['machineSource'];
  /** The plan is for the machine this app runs on (its runs and tunes run here). */
  here: boolean;
  /** "loaded file", "catalogued machine", "this machine". */
  kind: string;
  /** Why Run and Tune are not offered (null where they are). */
  reason: string | null;
}

const KIND: Record<PlanTarget['source'], string> = { detected: 'this machine', file: 'loaded file', catalogued: 'catalogued machine' };

/** Which machine `plan` is for; `hostId` is this machine's machineId (a loaded file of this very machine is this machine). */
export function planTarget(plan: PlanResult, hostId: string | null): PlanTarget {
  const { machineLabel: label, machineSource: source } = plan.profile;
  // plan/compute stamps each spec's prediction with the machine it was made for.
  const plannedId = plan.strategies.map((s) => s.spec.prediction?.machineId).find((id) => typeof id === 'string') ?? null;
  const here = source === 'detected' || (source === 'file' && hostId !== null && plannedId === hostId);
  const kind = here ? 'this machine' : KIND[source];
  const reason = here ? null : `This plan is for ${label}, a ${kind}: plan for this machine to run here.`;
  return { label, source, here, kind, reason };
}

/**
 * The machineId of the host runs start on, or null where there is none to name: under `serve --machine
 * FILE` the backend's machine is that file's, not the host the runs would start on (the backend
 * refuses runs and tunes there too).
 */
export function useHostId(): string | null {
  return useHardware((s) => (s.machine && !s.machine.warnings.some((w) => w.id === 'machine-from-file') ? s.machine.machineId : null));
}

/** The backend shows a machine loaded with --machine FILE instead of this one (serve or the app). */
export function useFileBackedSession(): boolean {
  return useHardware((s) => s.machine?.warnings.some((w) => w.id === 'machine-from-file') ?? false);
}

/** The plan's target as seen from this renderer (null without a plan). */
export function usePlanTarget(): PlanTarget | null {
  const plan = usePlan((s) => s.plan);
  const hostId = useHostId();
  return plan ? planTarget(plan, hostId) : null;
}

/** "Planned for: h200-sxm-x86 — 1× NVIDIA H200 (loaded file)" and, for another machine, the way back to this one. */
export function PlannedFor() {
  const target = usePlanTarget();
  const computing = usePlan((s) => s.computing);
  const planForThisMachine = usePlan((s) => s.planForThisMachine);
  const fileBacked = useFileBackedSession();
  const hostFigures = usePlan((s) => s.plan?.hostFigures);
  if (!target) return null;
  return (
    <>
      <p className={target.here ? 'small' : 'notice small'} data-testid="planned-for" data-here={target.here ? 'true' : 'false'}>
        <span>
          Planned for: <strong>{target.label}</strong> ({target.kind})
          {!target.here &&
            ' — its figures describe that machine, not this one; runs and tunes start here only from a plan for this machine.'}
        </span>
        {/* Under serve --machine FILE there is no "this machine" to plan for: say how to get one. */}
        {!target.here && fileBacked && (
          <span data-testid="file-backed-session">
            {' '}
            This session was started with --machine FILE: start it without --machine to plan and run for this machine.
          </span>
        )}
        {!target.here && !fileBacked && (
          <>
            {' '}
            <button
              type="button"
              className="secondary"
              disabled={computing}
              onClick={() => void planForThisMachine()}
              data-testid="plan-this-machine"
            >
              {computing ? 'Planning…' : 'Plan for this machine'}
            </button>
          </>
        )}
      </p>
      {/* Which of the machine's measurements the figures rest on: a busy one passed over, or the one picked. */}
      {hostFigures && (
        <p className="muted small" data-testid="host-figures">
          {hostFigures}
        </p>
      )}
    </>
  );
}
