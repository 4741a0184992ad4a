// What the orchestrator needs from the tuner, handed to it as a dependency so the engine itself never
// plans: when runs/start names a workload and strategies instead of giving specs, the plan's RunSpec of
// each strategy (what plan/compute shows for that workload on this machine); the refusal of a spec
// that can never run here; and the memory a spec needs on this host, for the runner's pre-flight. The
// backend implements it with the tuner (services/backend/tuner-planner.ts); tests pass their own.
import type { RunSpec, Workload } from '../../contract';

export type PreflightMemory = NonNullable<RunSpec['preflightMemory']>;

export interface Planner {
  /** `force`: plan a strategy that needs a GPU for this machine's CPU all the same (runs/start's force). */
  specs(workload: Workload, strategies: string[], machine: unknown, options?: { force?: boolean }): RunSpec[] | Promise<RunSpec[]>;
  /** Throws for a spec given as it is (not planned from a strategy id) that can never run on this machine, in the words `specs` uses. */
  refuseSpecs?(specs: RunSpec[], machine: unknown): void;
  /** This host's memory estimate for a spec about to start here, or null where it cannot be sized (the runner then uses the plan's figure). */
  sizeHere?(spec: RunSpec, machine: unknown): PreflightMemory | null;
}
