// What the orchestrator needs from the tuner when runs/start names a workload and strategies
// instead of giving specs: the plan's RunSpec of each strategy (what plan/compute shows for that
// workload on this machine). The tuner service implements it (tuner-planner.ts); the backend
// passes one that plans with this machine's measurements and calibration; tests pass their own.
import type { RunSpec, Workload } from '../../contract';

export interface Planner {
  specs(workload: Workload, strategies: string[], machine: unknown): RunSpec[] | Promise<RunSpec[]>;
}
