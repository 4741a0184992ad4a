// services/engine: run orchestration. Spawns the Python runner (resources/engine/bench.py) per
// run, parses its JSON-lines protocol, writes the run lifecycle and samples to history, streams
// progress/status/log events, cancels gracefully, and names every failure.
// Plain Node: never imports 'electron'; other services only through their index.
import { ApiError, type RunSpec, type StartRunsRequest } from '../../contract';
import type { HistoryStore } from '../history';
import { enginePath } from '../resources';
import { chooseInterpreter } from '../environment';
import { acquireSweepLock, clearStaleLock, endOrphanRunners, type SweepLock } from './orphans';
import { buildLaunch } from './launch';
import type { Planner } from './planner';
import { startSweep, type RunEnd, type Sweep, type SweepDeps, type SweepEvents } from './sweep';
import { tunerPlanner } from './tuner-planner';

export { createStdoutParser, LineSplitter, parseProtocolLine, DEFAULT_MAX_LINE_BYTES, type ParsedLine } from './jsonl';
export { classifyRun, classifyStderr, DEFAULT_FIX, type RunEvidence, type Verdict } from './classify';
export {
  startRunner,
  DEFAULT_GRACE_MS,
  type RunnerHandle,
  type RunnerLaunch,
  type RunnerOptions,
  type RunnerOutcome,
} from './runner-process';
// The interpreter chooser is the environment service's (one rule for Setup and runs).
export { chooseInterpreter, engineVenvs, venvPython, type InterpreterChoice } from '../environment';
export { buildLaunch, type LaunchInput } from './launch';
export { predictionElsewhere, startSweep, type RunEnd, type Sweep, type SweepDeps, type SweepEvents } from './sweep';
export { createTunerPlanner, tunerPlanner, type TunerPlannerOptions } from './tuner-planner';
export type { Planner } from './planner';
export { acquireSweepLock, clearStaleLock, endOrphanRunners, type SweepLock } from './orphans';

export interface EngineOptions {
  history: HistoryStore;
  dataDir: string;
  events: SweepEvents;
  machine(): Promise<unknown>;
  planner?: Planner;
  /** The interpreter the user selected (environment service), consulted after request.python. */
  selectedPython?(): Promise<string | null> | string | null;
  /** The runner script; default: the bundled resources/engine/bench.py. */
  benchScript?: string;
  /** Overrides of the sweep's timing knobs and launch (tests). */
  sweep?: Partial<Pick<SweepDeps, 'graceMs' | 'timeoutMs' | 'timeoutSlackSeconds' | 'defaultMaxSeconds' | 'launch'>>;
}

/** The active sweeps of one backend. One at a time: two sweeps would measure each other. */
export class EngineService {
  private readonly sweeps = new Map<string, Sweep>();
  private active: Sweep | null = null;
  /** True while a start is being planned (before its Sweep exists): a second start must wait its turn. */
  private starting = false;

  /** Pids of runners left by a process that died (ended at start-up). */
  readonly orphansEnded: number[];

  constructor(private readonly options: EngineOptions) {
    // Runs start-up recovery marked interrupted may still have their runner alive (the app was
    // SIGKILLed, or an SSH drop ended it): end those runners before anything new runs beside them.
    const { history, dataDir } = options;
    const orphanRuns = (history.recovered ?? []).filter((r) => r.previousStatus === 'running').map((r) => r.id);
    this.orphansEnded = [...safeList(() => clearStaleLock(dataDir)), ...safeList(() => endOrphanRunners(dataDir, orphanRuns))];
    if (this.orphansEnded.length)
      console.error(
        `[offload-studio] ended ${this.orphansEnded.length} runner process(es) left by a previous run of the app (pid ${this.orphansEnded.join(', ')})`,
      );
  }

  async start(request: StartRunsRequest): Promise<Sweep> {
    if (this.active || this.starting)
      throw new ApiError(
        'engine_busy',
        `A sweep${this.active ? ` (${this.active.id})` : ''} is already running; cancel it or wait for it to finish — two at once would measure each other.`,
      );
    this.starting = true;
    let lock: SweepLock | null = null;
    try {
      // One sweep per data folder across processes (another serve, the CLI): they would measure each other.
      lock = acquireSweepLock(this.options.dataDir, this.options.history.owner);
      const sweep = await this.begin(request);
      const held = lock;
      held.update(sweep.id, sweep.runIds);
      void sweep.done.finally(() => held.release());
      return sweep;
    } catch (error) {
      lock?.release();
      throw error;
    } finally {
      this.starting = false;
    }
  }

  private async begin(request: StartRunsRequest): Promise<Sweep> {
    const python = chooseInterpreter(request.python ?? (await this.options.selectedPython?.()) ?? null).python;
    const benchScript = this.options.benchScript ?? enginePath('bench.py');
    const launch =
      this.options.sweep?.launch ?? ((specFile: string, spec: RunSpec) => buildLaunch({ python, benchScript, specFile, gpus: spec.gpus }));
    const sweep = await startSweep(request, {
      history: this.options.history,
      dataDir: this.options.dataDir,
      planner: this.options.planner ?? tunerPlanner,
      events: this.options.events,
      machine: this.options.machine,
      ...this.options.sweep,
      launch,
    });
    this.active = sweep;
    this.sweeps.set(sweep.id, sweep);
    void sweep.done.finally(() => {
      if (this.active === sweep) this.active = null;
      this.sweeps.delete(sweep.id);
    });
    return sweep;
  }

  cancel(sweepId: string, force = false): boolean {
    const sweep = this.sweeps.get(sweepId);
    if (!sweep) return false;
    if (force) sweep.kill();
    else sweep.cancel();
    return true;
  }

  /** Stop everything (app closing): graceful, then forced, then wait for the rows to be final. */
  async close(): Promise<RunEnd[][]> {
    const sweeps = [...this.sweeps.values()];
    for (const s of sweeps) s.cancel();
    return Promise.all(sweeps.map((s) => s.done));
  }
}

function safeList(work: () => number[]): number[] {
  try {
    return work();
  } catch {
    return [];
  }
}
