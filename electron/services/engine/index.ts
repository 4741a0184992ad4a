// services/engine: run orchestration. Spawns the Python runner (resources/engine/bench.py) per
// run, parses its JSON-lines protocol, writes the run lifecycle and samples to history, streams
// progress/status/log events, cancels gracefully, and names every failure.
// Plain Node: never imports 'electron'; other services only through their index.
import { ApiError, type RunSpec, type StartRunsRequest } from '../../contract';
import type { HistoryStore } from '../history';
import { enginePath } from '../resources';
import { chooseInterpreter } from './interpreter';
import { buildLaunch } from './launch';
import type { Planner } from './planner';
import { startSweep, type RunEnd, type Sweep, type SweepDeps, type SweepEvents } from './sweep';
import { tunerPlanner } from './tuner-planner';

export { createStdoutParser, LineSplitter, parseProtocolLine, DEFAULT_MAX_LINE_BYTES, type ParsedLine } from './jsonl';
export { classifyRun, classifyStderr, DEFAULT_FIX, type RunEvidence, type Verdict } from './classify';
export { startRunner, DEFAULT_GRACE_MS, type RunnerHandle, type RunnerLaunch, type RunnerOptions, type RunnerOutcome } from './runner-process';
export { chooseInterpreter, engineVenvs, venvPython, type InterpreterChoice } from './interpreter';
export { buildLaunch, type LaunchInput } from './launch';
export { startSweep, type RunEnd, type Sweep, type SweepDeps, type SweepEvents } from './sweep';
export { createTunerPlanner, tunerPlanner, type TunerPlannerOptions } from './tuner-planner';
export type { Planner } from './planner';

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

  constructor(private readonly options: EngineOptions) {}

  async start(request: StartRunsRequest): Promise<Sweep> {
    if (this.active || this.starting)
      throw new ApiError('engine_busy', `A sweep${this.active ? ` (${this.active.id})` : ''} is already running; cancel it or wait for it to finish — two at once would measure each other.`);
    this.starting = true;
    try {
      return await this.begin(request);
    } finally {
      this.starting = false;
    }
  }

  private async begin(request: StartRunsRequest): Promise<Sweep> {
    const python = chooseInterpreter(request.python ?? (await this.options.selectedPython?.()) ?? null).python;
    const benchScript = this.options.benchScript ?? enginePath('bench.py');
    const launch = this.options.sweep?.launch ?? ((specFile: string, spec: RunSpec) => buildLaunch({ python, benchScript, specFile, gpus: spec.gpus }));
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
