// What the orchestrator needs from the tuner when runs/start names a workload and strategies
// instead of giving specs: the plan's RunSpec of each strategy (what plan/compute shows for that
// workload on this machine). The tuner service implements it (tuner-planner.ts); the backend
// passes one that plans with this machine's measurements and calibration; tests pass their own.
import type { RunSpec, Workload } from '../../contract';

export interface Planner {
  /** `force`: plan a strategy that needs a GPU for this machine's CPU all the same (runs/start's force). */
  specs(workload: Workload, strategies: string[], machine: unknown, options?: { force?: boolean }): RunSpec[] | Promise<RunSpec[]>;
  /** Throws for a spec given as it is (not planned from a strategy id) that can never run on this machine, in the words `specs` uses. */
  refuseSpecs?(specs: RunSpec[], machine: unknown): void;
}
