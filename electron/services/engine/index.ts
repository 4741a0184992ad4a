// services/engine: run orchestration. Spawns the Python runner (resources/engine/bench.py) per
// run, parses its JSON-lines protocol, writes the run lifecycle and samples to history, streams
// progress/status/log events, cancels gracefully, and names every failure.
// Plain Node: never imports 'electron'; other services only through their index.
import path from 'node:path';
import { ApiError, type RunSpec, type StartRunsRequest } from '../../contract';
import type { HistoryStore } from '../history';
import { enginePath } from '../resources';
import { createSlurmService } from '../cluster';
import { startSlurmJob } from './slurm-job';
import { settleJobRuns } from './slurm-settle';
import { submitAhead, type AheadSubmission } from './slurm-sweep';
import { chooseInterpreter } from '../environment';
import { acquireSweepLock, clearStaleLock, endOrphanRunners, type SweepLock } from './orphans';
import { buildLaunch } from './launch';
import type { Planner } from './planner';
import { startSweep, type RunEnd, type Sweep, type SweepDeps, type SweepEvents } from './sweep';

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
export type { Planner, PreflightMemory } from './planner';
export { startSlurmJob, FileTail, jobRecord, type SlurmJobOptions } from './slurm-job';
export { jobRunVerdict, jobExitCode, type JobEvidence } from './slurm-verdict';
export { settleJobRuns } from './slurm-settle';
export { acquireSweepLock, clearStaleLock, endOrphanRunners, type SweepLock } from './orphans';

export interface EngineOptions {
  history: HistoryStore;
  dataDir: string;
  events: SweepEvents;
  machine(): Promise<unknown>;
  /** The tuner's part of a start (plan a workload, refuse a spec, size a run here): the backend's tuner planner. */
  planner: Planner;
  /** The interpreter the user selected (environment service), consulted after request.python. */
  selectedPython?(): Promise<string | null> | string | null;
  /** The runner script; default: the bundled resources/engine/bench.py. */
  benchScript?: string;
  /** How often a Slurm job is asked about (default 1 s). */
  slurmPollMs?: number;
  /** Overrides of the sweep's timing knobs and launch (tests). */
  sweep?: Partial<Pick<SweepDeps, 'graceMs' | 'timeoutMs' | 'timeoutSlackSeconds' | 'defaultMaxSeconds' | 'launch'>>;
}

/** How often a live backend looks for runs of a dead process on its data folder (reapDeadOwners). */
export const REAP_MS = 5_000;

/** The active sweeps of one backend. One at a time: two sweeps would measure each other. */
export class EngineService {
  private readonly sweeps = new Map<string, Sweep>();
  private active: Sweep | null = null;
  /** True while a start is being planned (before its Sweep exists): a second start must wait its turn. */
  private starting = false;

  /** Pids of runners left by a process that died (ended at start-up). */
  readonly orphansEnded: number[];

  constructor(private readonly options: EngineOptions) {
    this.jobsSettled = this.settleJobs();
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

  /**
   * Another process on this data folder (a second serve, the CLI) that died mid-sweep leaves its
   * rows 'running' and its lock behind; a live process notices here, marks those runs interrupted
   * and ends their runners. Once A was SIGKILLed, serve C showed A's run running for minutes and
   * could not cancel it. Called every REAP_MS and before a cancel; returns the runs it marked.
   */
  reapDeadOwners(): string[] {
    const recovered = safeRecover(() => this.options.history.recoverDeadOwners?.() ?? []);
    const running = recovered.filter((r) => r.previousStatus === 'running').map((r) => r.id);
    safeList(() => endOrphanRunners(this.options.dataDir, running));
    // The dead owner's lock goes too (ending any runner it names), unless a sweep here holds it.
    if (!this.active && !this.starting) safeList(() => clearStaleLock(this.options.dataDir));
    // A dead process that was following Slurm jobs: ask Slurm how they ended.
    if (running.length) void this.settleJobs();
    return recovered.map((r) => r.id);
  }

  /**
   * A sweep this process does not run: a dead process's is marked interrupted now (nothing is left
   * to cancel: false); a live process's is refused naming it, since only that process can stop its
   * runner cleanly. An unknown or finished sweep: false, as before.
   */
  private cancelElsewhere(sweepId: string): boolean {
    this.reapDeadOwners();
    const owner = safeRecover(() => this.options.history.unfinishedOwners?.(sweepId) ?? [])[0];
    if (!owner) return false;
    const pid = owner.split(':').at(-2);
    throw new ApiError(
      'not_here',
      `Sweep ${sweepId} is run by another Offload Studio process (pid ${pid}) on this data folder; cancel it there, or stop that process.`,
      'sweepId',
    );
  }

  private readonly reaper = setInterval(() => this.reapDeadOwners(), REAP_MS).unref();

  /**
   * Runs that were Slurm jobs when a previous process stopped: Slurm is asked how each ended
   * (engine/slurm-settle.ts). Started once with the service; readers that must see the real
   * state (runs/get) wait for it.
   */
  readonly jobsSettled: Promise<string[]>;

  settleJobs(): Promise<string[]> {
    const bundledEngineDir = this.options.benchScript ? path.dirname(this.options.benchScript) : enginePath();
    return settleJobRuns({ history: this.options.history, dataDir: this.options.dataDir, bundledEngineDir }).catch((error: unknown) => {
      console.error(`[offload-studio] could not ask Slurm about earlier jobs: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    });
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
    const slurm = request.slurm ? this.slurmStart(request.slurm) : null;
    const sweep = await startSweep(request, {
      history: this.options.history,
      dataDir: this.options.dataDir,
      planner: this.options.planner,
      events: this.options.events,
      machine: this.options.machine,
      ...this.options.sweep,
      launch,
      // A job runs on the cluster's nodes: this machine's resources say nothing about it.
      ...(slurm ? { ...slurm, monitor: null } : {}),
    });
    this.active = sweep;
    this.sweeps.set(sweep.id, sweep);
    void sweep.done.finally(() => {
      if (this.active === sweep) this.active = null;
      this.sweeps.delete(sweep.id);
    });
    return sweep;
  }

  /** Runs as jobs of a saved Slurm target: each spec one sbatch job (or a task of the sweep's array), followed to its end. */
  private slurmStart(name: string): Pick<SweepDeps, 'startRunner' | 'beforeRuns' | 'abandon'> {
    const bundledEngineDir = this.options.benchScript ? path.dirname(this.options.benchScript) : enginePath();
    const { target } = createSlurmService({ dataDir: this.options.dataDir, bundledEngineDir }).get(name);
    const history = this.options.history;
    let ahead: AheadSubmission | null = null;
    return {
      // 'serial': each run is submitted when its turn comes; 'chain' and 'array': all at once, before the first.
      beforeRuns: (sweepId, runs) => {
        if (target.sweepMode !== 'serial') ahead = submitAhead(target, sweepId, runs, { bundledEngineDir });
      },
      abandon: (runId) => ahead?.abandon(runId),
      startRunner: (options, run) =>
        startSlurmJob({
          ...options,
          // The job's own time limit stops it; the orchestrator's clock would count time in the queue.
          timeoutMs: undefined,
          target,
          spec: run.spec,
          bundledEngineDir,
          pollMs: this.options.slurmPollMs,
          submitted: ahead?.jobOf(run.id),
          onJob: (job) => {
            try {
              history.recordJob(run.id, job);
            } catch {
              // a busy database: the next state change writes it again
            }
          },
        }),
    };
  }

  cancel(sweepId: string, force = false): boolean {
    const sweep = this.sweeps.get(sweepId);
    if (!sweep) return this.cancelElsewhere(sweepId);
    if (force) sweep.kill();
    else sweep.cancel();
    return true;
  }

  /** Stop everything (app closing): graceful, then forced, then wait for the rows to be final. */
  async close(): Promise<RunEnd[][]> {
    clearInterval(this.reaper);
    const sweeps = [...this.sweeps.values()];
    for (const s of sweeps) s.cancel();
    return Promise.all(sweeps.map((s) => s.done));
  }
}

function safeRecover<T>(work: () => T[]): T[] {
  try {
    return work();
  } catch {
    return []; // a busy or full database: the next round tries again
  }
}

function safeList(work: () => number[]): number[] {
  try {
    return work();
  } catch {
    return [];
  }
}
