// A sweep: strategies × repeats, run one after another (never two runs on one machine at once:
// they would measure each other). Every run is in history from the moment the sweep is
// accepted (queued), 'running' while its runner lives, and final when it ends — whatever the
// way it ends — so nothing is lost or left 'running' (start-up recovery covers a crash of
// this process: see history/lifecycle.ts).
import fs from 'node:fs';
import path from 'node:path';
import {
  type ResourceLiveEvent,
  type RunLogEvent,
  type RunProgressEvent,
  type RunSpec,
  type RunStatusEvent,
  type StartRunsRequest,
} from '../../contract';
import type { HistoryStore } from '../history';
import { DEFAULT_FIX } from './classify';
import { deferredWritesFor } from './deferred-writes';
import { assertRunnerBuilds } from './families';
import { newSweepId, runIdFor } from './ids';
import { sweepEta } from './sweep-eta';
import { guardEmit, RunRecorder } from './run-recorder';
import { forThisHost, machineIdOf, plannedNotes, sizedHere, specsOf } from './sweep-specs';
import type { Planner } from './planner';
export { plannedNotes, predictionElsewhere } from './sweep-specs';
import { runGpuIndexes, startMonitor, type MonitorOptions, type ResourceMonitor } from '../monitor';

/** Predicted figures stored beside the measurement (tflopsPerGpu/stepSeconds are also columns). */
type Prediction = { tflopsPerGpu?: number | null; stepSeconds?: number | null } & Record<string, unknown>;
import { startRunner, type RunnerHandle, type RunnerLaunch, type RunnerOptions, type RunnerOutcome } from './runner-process';

export interface SweepEvents {
  progress(event: RunProgressEvent): void;
  status(event: RunStatusEvent): void;
  log(event: RunLogEvent): void;
  /** The newest resource sample of the running run, about once a second. */
  resources?(event: ResourceLiveEvent): void;
}

/** Whether runs are sampled for the resource view: on unless OFFLOAD_STUDIO_RESOURCES=off (the bench's runs without it). */
export function samplingOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(off|0|false|no)$/i.test(env.OFFLOAD_STUDIO_RESOURCES ?? '');
}

export interface SweepDeps {
  history: HistoryStore;
  dataDir: string;
  planner: Planner;
  events: SweepEvents;
  /** The system snapshot (contract Machine), taken once per sweep. */
  machine(): Promise<unknown>;
  /** The command line for one run (its spec already written to specFile). */
  launch(specFile: string, spec: RunSpec): RunnerLaunch;
  /** Before the first run: submit every run ahead (a Slurm sweep as a chain or a job array). */
  beforeRuns?(sweepId: string, runs: { id: string; spec: RunSpec }[]): void;
  /** A run that will not be started (the sweep was cancelled): what was submitted for it goes. */
  abandon?(runId: string): void;
  /** Starts a run somewhere else than a child process here (a Slurm job); default startRunner. */
  startRunner?(options: RunnerOptions, run: { id: string; spec: RunSpec; specFile: string }): RunnerHandle;
  graceMs?: number;
  /** Added to the spec's maxSeconds for the orchestrator's own hard limit (start-up, op builds). */
  timeoutSlackSeconds?: number;
  /** Overrides the hard limit (tests). */
  timeoutMs?: number;
  defaultMaxSeconds?: number;
  /** The resource monitor of one run (default: startMonitor with the sweep's machine; null: not sampled). */
  monitor?: ((runId: string, options: MonitorOptions) => ResourceMonitor | null) | null;
  sampleBatch?: number;
  sampleFlushMs?: number;
  logFlushMs?: number;
}

export interface RunEnd {
  runId: string;
  strategy: string;
  repeatIndex: number;
  status: 'completed' | 'failed' | 'cancelled';
  errorClass: string | null;
  message: string | null;
  fix: string | null;
  outcome: RunnerOutcome | null;
}

export interface Sweep {
  readonly id: string;
  readonly runIds: string[];
  /** Every run in the order it runs, with its strategy and repeat (what runs/start replies). */
  readonly runs: { runId: string; strategy: string; repeatIndex: number }[];
  readonly done: Promise<RunEnd[]>;
  /** Graceful: the current run gets SIGINT (SIGKILL after the grace period); queued runs are cancelled. */
  cancel(): void;
  /** Immediate SIGKILL of the current run; queued runs are cancelled. */
  kill(): void;
  readonly cancelled: boolean;
}

interface PlannedRun {
  id: string;
  strategy: string;
  repeatIndex: number;
  spec: RunSpec;
  predicted: Prediction | null;
  /** Lines of ours for the run's log, written when its runner starts (why its spec differs from the plan's). */
  notes: string[];
}

/** The prediction stored beside the measurement: the one the spec carries (what the plan showed). */
function predictionOf(spec: RunSpec): Prediction | null {
  return spec.prediction ? { ...spec.prediction } : null;
}

/** Plans every run, writes them queued, and starts the first. Throws (writing nothing) when a
 *  strategy cannot be planned, so a typo fails before anything runs. */
export async function startSweep(request: StartRunsRequest, deps: SweepDeps): Promise<Sweep> {
  const sweepId = newSweepId();
  const maxSeconds = request.maxSeconds ?? deps.defaultMaxSeconds ?? 3600;
  let machine: unknown = null;
  try {
    machine = await deps.machine();
  } catch {
    machine = null; // a run without a snapshot is still a run; comparisons will say it lacks one
  }
  // A spec planned for another machine is refused, or run without that machine's prediction, before anything is queued.
  // Each then carries the memory it needs on this host, sized here, for the runner's pre-flight.
  const prepared = forThisHost(await specsOf(request, deps.planner, machine), machineIdOf(machine))
    .map((p) => ({ ...p, notes: [...plannedNotes(request, p.spec), ...p.notes] }))
    .map((p) => sizedHere(p, machine, deps.planner));
  const specs = prepared.map((p) => p.spec);
  // A model the runner would refuse (family, positions) is refused here, before anything is queued.
  assertRunnerBuilds(specs);

  // Repeats outer, specs inner: drift of the machine (thermals, page cache) spreads over all
  // strategies instead of favouring the first. The reply lists this order (runs/start `runs`).
  const planned: PlannedRun[] = [];
  for (let r = 0; r < request.repeats; r++)
    for (const { spec: base, notes } of prepared) {
      const id = runIdFor(sweepId, planned.length);
      // The plan's spec unchanged, but for what says which run this is and how long it goes.
      const spec: RunSpec = {
        ...base,
        runId: id,
        // The runner counts warm-up inside `steps`; the request asks for measured steps.
        steps: request.steps + request.warmup,
        warmup: request.warmup,
        seed: request.seed ?? base.seed,
        maxSeconds,
      };
      planned.push({ id, strategy: spec.strategy, repeatIndex: r, spec, predicted: predictionOf(spec), notes });
    }

  for (const run of planned)
    deps.history.createRun({
      id: run.id,
      sweepId,
      repeatIndex: run.repeatIndex,
      model: run.spec.model.id,
      strategy: run.strategy,
      engine: run.spec.engine,
      steps: request.steps,
      warmup: request.warmup,
      tags: request.tags,
      spec: run.spec,
      predicted: run.predicted ?? undefined,
    });

  return new SweepExecution(sweepId, planned, machine, deps, specs[0].gpus).start();
}

class SweepExecution implements Sweep {
  readonly runIds: string[];
  readonly runs: { runId: string; strategy: string; repeatIndex: number }[];
  done!: Promise<RunEnd[]>;
  private stopRequested: 'cancel' | 'kill' | null = null;
  private current: RunnerHandle | null = null;
  private readonly startedAt = Date.now();
  /** This sweep's finished runs: wall seconds by configuration (what the time estimate counts first). */
  private readonly finished: { configHash: string; seconds: number }[] = [];
  /** This machine's step times of the sweep's configurations and its engine start-up, from history. */
  private measuredStep: Record<string, { seconds: number }> = {};
  private startup: number | null = null;

  constructor(
    readonly id: string,
    private readonly planned: PlannedRun[],
    private readonly machine: unknown,
    private readonly deps: SweepDeps,
    private readonly gpus: number,
  ) {
    this.runIds = planned.map((p) => p.id);
    this.runs = planned.map((p) => ({ runId: p.id, strategy: p.strategy, repeatIndex: p.repeatIndex }));
  }

  get cancelled(): boolean {
    return this.stopRequested !== null;
  }

  start(): this {
    this.loadMeasured();
    this.done = this.runAll();
    return this;
  }

  /** What this machine measured before for the sweep's configurations; a history that cannot answer leaves the estimate to this sweep's own runs. */
  private loadMeasured(): void {
    const machineId = machineIdOf(this.machine);
    if (!machineId) return;
    try {
      this.measuredStep = this.deps.history.measuredStepSeconds([machineId], [...new Set(this.planned.map((p) => p.spec.configHash))]);
      this.startup = this.deps.history.engineStartSeconds([machineId], this.planned[0]?.spec.model.id)?.seconds ?? null;
    } catch {
      this.measuredStep = {};
      this.startup = null;
    }
  }

  cancel(): void {
    if (!this.stopRequested) this.stopRequested = 'cancel';
    this.current?.cancel();
  }

  kill(): void {
    this.stopRequested = 'kill';
    this.current?.kill();
  }

  private position(i: number) {
    const p = this.planned[i];
    return { sweepId: this.id, runId: p.id, runIndex: i, runCount: this.planned.length, strategy: p.strategy, repeatIndex: p.repeatIndex };
  }

  private async runAll(): Promise<RunEnd[]> {
    const ends: RunEnd[] = [];
    try {
      this.deps.beforeRuns?.(
        this.id,
        this.planned.map((p) => ({ id: p.id, spec: p.spec })),
      );
    } catch (error) {
      console.error(`[offload-studio] submitting the sweep ahead failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (let i = 0; i < this.planned.length; i++) {
      let end: RunEnd;
      try {
        end = this.stopRequested ? this.skip(i) : await this.runOne(i);
      } catch (error) {
        // The orchestrator itself failed (a DB write, a full disk): the run must still end.
        end = this.endWith(i, {
          status: 'failed',
          errorClass: 'internal',
          message: `The orchestrator failed: ${error instanceof Error ? error.message : String(error)}`,
          fix: DEFAULT_FIX.internal,
          outcome: null,
        });
      }
      ends.push(end);
    }
    return ends;
  }

  private endWith(i: number, e: Omit<RunEnd, 'runId' | 'strategy' | 'repeatIndex'>): RunEnd {
    const p = this.planned[i];
    // A failed write (a full disk) is retried until it lands (deferred-writes.ts): the run must not
    // stay `running` once space returns; start-up recovery marks it interrupted if it never does.
    deferredWritesFor(this.deps.history).run(`end of ${p.id}`, () =>
      this.deps.history.finishRun(p.id, {
        status: e.status,
        errorClass: e.errorClass,
        errorMessage: e.message,
        errorFix: e.fix,
        exitCode: e.outcome?.exitCode ?? null,
        exitSignal: e.outcome?.signal ?? null,
        result: e.outcome?.result ?? null, // kept even for a failed run: it says how far it got
      }),
    );
    const r = e.outcome?.result;
    const finite = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
    // The end is stored above; an event the contract refuses must not turn it into a crash.
    guardEmit(() =>
      this.deps.events.status({
        ...this.position(i),
        phase: 'finished',
        status: e.status,
        errorClass: (e.errorClass as RunStatusEvent['errorClass']) ?? null,
        message: e.message,
        fix: e.fix,
        tflopsPerGpu: finite(r?.tflopsPerGpu?.median),
        stepSeconds: finite(r?.stepSeconds?.median),
        sweepDone: i === this.planned.length - 1,
      }),
    );
    return { runId: p.id, strategy: p.strategy, repeatIndex: p.repeatIndex, ...e };
  }

  private skip(i: number): RunEnd {
    try {
      this.deps.abandon?.(this.planned[i].id);
    } catch {
      // nothing was submitted for it
    }
    return this.endWith(i, {
      status: 'cancelled',
      errorClass: 'cancelled',
      message: 'Cancelled before it started.',
      fix: null,
      outcome: null,
    });
  }

  private async runOne(i: number): Promise<RunEnd> {
    const p = this.planned[i];
    const { deps } = this;
    const logPath = path.join(deps.dataDir, 'logs', `${p.id}.log`);
    const specFile = path.join(deps.dataDir, 'specs', `${p.id}.json`);
    fs.mkdirSync(path.dirname(specFile), { recursive: true });
    fs.writeFileSync(specFile, JSON.stringify(p.spec, null, 2));
    deps.history.startRun(p.id, { snapshot: this.machine ?? undefined, machineId: machineIdOf(this.machine), logPath });
    const runStarted = Date.now();
    deps.events.status({
      ...this.position(i),
      phase: 'started',
      status: 'running',
      errorClass: null,
      message: null,
      fix: null,
      tflopsPerGpu: null,
      stepSeconds: null,
      sweepDone: false,
    });

    const total = p.spec.steps;
    const recorder = new RunRecorder({
      runId: p.id,
      total,
      history: deps.history,
      log: (lines) => deps.events.log({ sweepId: this.id, runId: p.id, lines }),
      // The event carries the stored sample's fields, plus where the sweep stands.
      progress: (sample, m, now, clock) => ({
        ...this.position(i),
        ...sample,
        total,
        elapsedSeconds: (now - this.startedAt) / 1000,
        etaSeconds: sweepEta({
          runs: this.planned.map((r) => ({ configHash: r.spec.configHash, steps: r.spec.steps })),
          index: i,
          step: m.step,
          wallPerStep: (now - clock.firstStepAt) / clock.stepsSeen / 1000,
          runElapsed: (now - runStarted) / 1000,
          startupHere: (clock.firstStepAt - runStarted) / 1000,
          finished: this.finished,
          measuredStep: this.measuredStep,
          startup: this.startup,
        }),
      }),
      emitProgress: (event) => deps.events.progress(event),
      sampleFlushMs: deps.sampleFlushMs,
      sampleBatch: deps.sampleBatch,
      logFlushMs: deps.logFlushMs,
    });
    const monitor = this.startMonitor(i, recorder);

    const maxSeconds = p.spec.maxSeconds;
    let handle: RunnerHandle;
    try {
      const runnerOptions: RunnerOptions = {
        // a run started elsewhere (a Slurm job) has no local command line
        launch: deps.startRunner ? { command: '', args: [] } : deps.launch(specFile, p.spec),
        timeoutMs: deps.timeoutMs ?? (maxSeconds + (deps.timeoutSlackSeconds ?? 120)) * 1000,
        graceMs: deps.graceMs,
        logFile: logPath,
        onMessage: (m) => recorder.onMessage(m),
        onLog: (line) => recorder.onLog(line),
      };
      handle = deps.startRunner ? deps.startRunner(runnerOptions, { id: p.id, spec: p.spec, specFile }) : startRunner(runnerOptions);
    } catch (error) {
      recorder.stopTimers();
      recorder.safely(() => monitor?.stop()); // its nvidia-smi children must not outlive a run that never started
      throw error;
    }
    this.current = handle;
    recorder.attach(handle);
    for (const line of p.notes) handle.note(line);
    // A cancel that arrived while this run was being prepared.
    if (this.stopRequested === 'cancel') handle.cancel();
    if (this.stopRequested === 'kill') handle.kill();
    let outcome: RunnerOutcome;
    try {
      outcome = await handle.done;
    } finally {
      this.current = null;
      recorder.stopTimers();
    }
    recorder.finish();
    // Only a completed run's wall time says how long its configuration takes (a failed one stopped early).
    if (outcome.status === 'completed') this.finished.push({ configHash: p.spec.configHash, seconds: (Date.now() - runStarted) / 1000 });
    return this.endWith(i, { status: outcome.status, errorClass: outcome.errorClass, message: outcome.message, fix: outcome.fix, outcome });
  }

  /**
   * The resource monitor of run `i`: sampling beside the runner, never in its way. Its start, its
   * samples and its end are each guarded: nothing about sampling can fail or hold up a run.
   */
  private startMonitor(i: number, recorder: RunRecorder): ResourceMonitor | null {
    const p = this.planned[i];
    const { deps } = this;
    if (deps.monitor === null || !samplingOn()) return null;
    let lastLive = 0;
    let monitor: ResourceMonitor | null = null;
    const rawDir = process.env.OFFLOAD_STUDIO_RESOURCES_RAW_DIR;
    const monitorOptions: MonitorOptions = {
      machine: this.machine,
      gpuIndexes: runGpuIndexes(p.spec.gpus),
      rawFilePrefix: rawDir ? path.join(rawDir, p.id) : null,
      onSample: (sample, availability) => {
        const now = Date.now();
        if (now - lastLive < 950 || !deps.events.resources) return; // the live view gets one a second
        lastLive = now;
        guardEmit(() =>
          deps.events.resources!({ sweepId: this.id, runId: p.id, sample, availability, pcieLinkGBps: monitor?.pcieLinkGBps }),
        );
      },
    };
    try {
      monitor = (deps.monitor ?? ((_id: string, o: MonitorOptions) => startMonitor(o)))(p.id, monitorOptions);
    } catch (error) {
      recorder.note(
        `[offload-studio] resource sampling could not start (the run goes on without it): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (monitor) recorder.watch(monitor);
    return monitor;
  }
}
