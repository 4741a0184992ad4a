// A sweep: strategies × repeats, run one after another (never two runs on one machine at once:
// they would measure each other). Every run is in history from the moment the sweep is
// accepted (queued), 'running' while its runner lives, and final when it ends — whatever the
// way it ends — so nothing is lost or left 'running' (start-up recovery covers a crash of
// this process: see history/lifecycle.ts).
import fs from 'node:fs';
import path from 'node:path';
import {
  ApiError,
  toRunSample,
  type ResourceLiveEvent,
  type RunLogEvent,
  type RunProgressEvent,
  type RunSample,
  type RunSpec,
  type RunStatusEvent,
  type RunnerMessage,
  type StartRunsRequest,
} from '../../contract';
import type { HistoryStore } from '../history';
import { DEFAULT_FIX } from './classify';
import { deferredWritesFor } from './deferred-writes';
import { assertRunnerBuilds } from './families';
import { newSweepId, runIdFor } from './ids';
import { sweepEta } from './sweep-eta';
import { sizeRunHere } from './size-here';
import type { Planner } from './planner';
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

const LOG_BATCH_LINES = 200;

/** Emits an event; a listener or validation error is reported on stderr, never thrown into a
 *  child's stdout handler or a timer (either would end the whole process). */
function guardEmit(emitEvent: () => void): void {
  try {
    emitEvent();
  } catch (error) {
    console.error(`[offload-studio] an engine event was dropped: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
  }
}

function machineIdOf(machine: unknown): string | null {
  const id = (machine as { machineId?: unknown } | null)?.machineId;
  return typeof id === 'string' ? id : null;
}

/**
 * What a workload request runs, in the run's log (and stored notes): the micro batch and knobs the plan chose
 * for the strategy on this machine — what `plan` shows for it — or, asked with a micro batch, that one, said
 * where the spec runs another (a global batch's split). Before issue 46 `run` without --micro-batch silently ran
 * another micro batch than `plan` showed (its plan lacked the kind's memory evidence).
 */
export function plannedNotes(request: StartRunsRequest, spec: RunSpec): string[] {
  const w = request.workload;
  if (!w) return []; // specs run unchanged: their own words
  const knobs = Object.entries(spec.knobs ?? {})
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  const config = `micro batch ${spec.microBatch} × accumulation ${spec.gradAccum}${knobs ? ` (${knobs})` : ''}`;
  if (w.searchMicroBatch === false)
    return spec.microBatch === w.microBatch
      ? []
      : [
          `[offload-studio] ${spec.strategy} runs ${config}, not the micro batch ${w.microBatch} asked for: the plan's split of the workload's global batch.`,
        ];
  return [
    `[offload-studio] ${spec.strategy} runs ${config}: the plan's configuration for this strategy on this machine, as \`plan\` shows it (--micro-batch N runs another).`,
  ];
}

/** The specs a request runs: its own, or the planner's for its workload and strategies. */
async function specsOf(request: StartRunsRequest, planner: Planner, machine: unknown): Promise<RunSpec[]> {
  const specs = request.specs ?? (await planner.specs(request.workload!, request.strategies!, machine, { force: request.force }));
  // what can never run on this machine, whichever door the specs came through (tuner-planner.ts)
  planner.refuseSpecs?.(specs, machine);
  return specs;
}

const SOURCE_WORDS = { file: 'a loaded file', catalogued: 'a catalogued machine' } as const;

/**
 * Whether a spec's prediction was made for another machine than `hostId`, the one it is about to run
 * on (its snapshot's machineId): 'refuse' for a plan of a loaded or catalogued machine (once, a
 * 3B ZeRO-1 planned for a loaded H200 was started on a CPU box), 'drop' for one planned on another
 * detected host (its host figure would size this host's pre-flight), null where it is this
 * machine's or cannot be told (a spec without the stamp: hand-written, or older than it).
 */
export function predictionElsewhere(spec: RunSpec, hostId: string | null): { action: 'refuse' | 'drop'; words: string } | null {
  const p = spec.prediction;
  if (!p || (p.machineSource === undefined && (p.machineId === undefined || p.machineId === null))) return null;
  const sameHost = hostId !== null && p.machineId === hostId;
  if (sameHost) return null;
  const label = p.machineLabel ?? p.machineId ?? 'another machine';
  if (p.machineSource === 'file' || p.machineSource === 'catalogued')
    return { action: 'refuse', words: `${label}, ${SOURCE_WORDS[p.machineSource]}` };
  if (p.machineId && hostId !== null)
    return { action: 'drop', words: `${label} (machine ${p.machineId}), not this host (machine ${hostId})` };
  return null;
}

/**
 * The specs as they run on this host: one planned for a loaded or catalogued machine is refused
 * (plan for this machine to run here); one planned on another detected host runs without that
 * prediction, so the runner's pre-flight sizes it for this host with its own estimate rather than
 * taking the other host's hostPeakBytes as this one's — and the run's log says so.
 */
function forThisHost(specs: RunSpec[], hostId: string | null): { spec: RunSpec; notes: string[] }[] {
  return specs.map((spec, i) => {
    const elsewhere = predictionElsewhere(spec, hostId);
    if (!elsewhere) return { spec, notes: [] };
    if (elsewhere.action === 'refuse')
      throw new ApiError(
        'planned_elsewhere',
        `This plan is for ${elsewhere.words}, not this machine: plan for this machine to run here (the ${spec.strategy} spec's prediction${specs.length > 1 ? `, specs[${i}]` : ''} was made for it).`,
        'specs',
      );
    return {
      spec: { ...spec, prediction: null },
      notes: [
        `[offload-studio] the plan's prediction for ${spec.strategy} was made for ${elsewhere.words}: it is left out of this run, so the pre-flight sizes the run for this host and no prediction is stored beside the measurement.`,
      ],
    };
  });
}

/**
 * The spec with this host's memory estimate for it (size-here.ts), which the runner's pre-flight checks
 * instead of the plan's figure, and a log line saying which figure that is; unchanged where the tuner
 * cannot size it (the runner then says whose figure it checks).
 */
function sizedHere(p: { spec: RunSpec; notes: string[] }, machine: unknown): { spec: RunSpec; notes: string[] } {
  const sized = sizeRunHere(p.spec, machine);
  if (!sized) return p;
  const planned = p.spec.prediction?.hostPeakBytes;
  const differs = planned !== undefined && Math.abs(planned - sized.hostBytes) > 0.05 * Math.max(planned, sized.hostBytes);
  return {
    spec: { ...p.spec, preflightMemory: sized },
    notes: [
      ...p.notes,
      `[offload-studio] pre-flight: this run needs ~${(sized.hostBytes / 1024 ** 3).toFixed(1)} GiB of host memory on this host (${sized.basis})${differs ? `; the plan's prediction said ${(planned / 1024 ** 3).toFixed(1)} GiB` : ''}.`,
    ],
  };
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
    .map((p) => sizedHere(p, machine));
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

    // Samples: batched into one transaction per flush (per step would cost a WAL commit each),
    // every `sampleFlushMs`. A step that came `sampleFlushMs` or more after the previous one is
    // stored at once: runs whose steps are slower than the interval keep every step as it comes
    // (a kill loses none); fast ones still pay one commit per interval.
    const sampleFlushMs = deps.sampleFlushMs ?? 1000;
    let samples: RunSample[] = [];
    let previousStepAt = Date.now();
    const flushSamples = () => {
      if (samples.length === 0) return;
      const batch = samples;
      samples = [];
      try {
        deps.history.appendSamples(p.id, batch);
      } catch (error) {
        samples = batch.concat(samples); // kept for the next flush (a full disk may free up); bounded by the spec's steps
        throw error;
      }
    };
    const sampleTimer = setInterval(() => safely(flushSamples), sampleFlushMs);
    // Log lines: batched into events (a noisy op build prints thousands of lines).
    let lines: string[] = [];
    const flushLog = () => {
      if (lines.length === 0) return;
      const batch = lines;
      lines = [];
      guardEmit(() => deps.events.log({ sweepId: this.id, runId: p.id, lines: batch }));
    };
    const logTimer = setInterval(flushLog, deps.logFlushMs ?? 250);
    const safely = (work: () => void) => {
      try {
        work();
      } catch (error) {
        lines.push(`[offload-studio] could not store: ${error instanceof Error ? error.message : String(error)}`);
      }
    };

    const total = p.spec.steps;
    let firstStepAt = 0;
    let stepsSeen = 0;
    let overflowNoted = false;
    // A line of ours into the run's log file and the live log (once the runner is started).
    let handleRef: RunnerHandle | null = null;
    const note = (line: string) => (handleRef ? handleRef.note(line) : lines.push(line));
    // An event a runner's values made invalid (the contract refuses it) is dropped with a log
    // line: it must never throw out of the runner's stdout handler and take the process down.
    let emitErrorNoted = false;
    const emitSafely = (emitEvent: () => void) => {
      try {
        emitEvent();
      } catch (error) {
        if (emitErrorNoted) return;
        emitErrorNoted = true;
        note(
          `[offload-studio] a progress event was dropped (the runner sent values outside the contract): ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`,
        );
      }
    };
    const onMessage = (m: RunnerMessage) => {
      switch (m.type) {
        case 'hello':
          safely(() => deps.history.recordHello(p.id, m));
          break;
        case 'config':
          safely(() => deps.history.recordConfig(p.id, m));
          break;
        case 'step': {
          // A runner that reports more steps than the spec asked for (a bug, or a hostile runner
          // printing a million lines) does not get them stored or streamed: the run has `total`.
          if (m.step > total || stepsSeen >= total) {
            if (!overflowNoted) {
              overflowNoted = true;
              note(
                `[offload-studio] the runner reported more steps than the ${total} this run asked for; steps after ${total} were not stored.`,
              );
            }
            break;
          }
          const sample = toRunSample(m);
          samples.push(sample);
          const now = Date.now();
          // The step's end in the monitor's clock: the runner's own stamp when it is this host's clock (within 5 s), else arrival.
          const at = Number.isFinite(m.t) && Math.abs(m.t * 1000 - now) < 5000 ? m.t * 1000 : now;
          safely(() => monitor?.markStep(m, at));
          const slowStep = now - previousStepAt >= sampleFlushMs;
          previousStepAt = now;
          if (slowStep || samples.length >= (deps.sampleBatch ?? 64)) safely(flushSamples);
          stepsSeen++;
          // A step time that is not a sane finite number of seconds does not start the clock.
          if (stepsSeen === 1)
            firstStepAt = now - (Number.isFinite(m.stepSeconds) && m.stepSeconds >= 0 ? Math.min(m.stepSeconds, 1e7) : 0) * 1000;
          // The event carries the stored sample's fields, plus where the sweep stands.
          emitSafely(() =>
            deps.events.progress({
              ...this.position(i),
              ...sample,
              total,
              elapsedSeconds: (now - this.startedAt) / 1000,
              etaSeconds: sweepEta({
                runs: this.planned.map((r) => ({ configHash: r.spec.configHash, steps: r.spec.steps })),
                index: i,
                step: m.step,
                wallPerStep: (now - firstStepAt) / stepsSeen / 1000,
                runElapsed: (now - runStarted) / 1000,
                startupHere: (firstStepAt - runStarted) / 1000,
                finished: this.finished,
                measuredStep: this.measuredStep,
                startup: this.startup,
              }),
            }),
          );
          break;
        }
        case 'preflight':
          // Shown in the log view as the runner's own checks, one line each.
          for (const check of m.checks) {
            const detail = typeof check.detail === 'string' ? ` — ${check.detail}` : '';
            // A failed warning (memlock, GPU memory) does not stop the run: WARN, not FAIL.
            const verdict = check.ok ? 'ok  ' : (check as { severity?: unknown }).severity === 'warning' ? 'WARN' : 'FAIL';
            lines.push(`[preflight] ${verdict} ${check.name}${detail}`);
          }
          break;
        default:
          break;
      }
    };

    // The resource monitor: sampling beside the runner, never in its way. Its start, its
    // samples and its end are each guarded: nothing about sampling can fail or hold up a run.
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
    if (deps.monitor !== null && samplingOn())
      try {
        monitor = (deps.monitor ?? ((_id: string, o: MonitorOptions) => startMonitor(o)))(p.id, monitorOptions);
      } catch (error) {
        lines.push(
          `[offload-studio] resource sampling could not start (the run goes on without it): ${error instanceof Error ? error.message : String(error)}`,
        );
      }

    const maxSeconds = p.spec.maxSeconds;
    let handle: RunnerHandle;
    try {
      const runnerOptions: RunnerOptions = {
        launch: deps.startRunner ? { command: '', args: [] } : deps.launch(specFile, p.spec),
        timeoutMs: deps.timeoutMs ?? (maxSeconds + (deps.timeoutSlackSeconds ?? 120)) * 1000,
        graceMs: deps.graceMs,
        logFile: logPath,
        onMessage,
        onLog: (line) => {
          lines.push(line);
          if (lines.length >= LOG_BATCH_LINES) flushLog();
        },
      };
      handle = deps.startRunner ? deps.startRunner(runnerOptions, { id: p.id, spec: p.spec, specFile }) : startRunner(runnerOptions);
    } catch (error) {
      safely(() => monitor?.stop()); // its nvidia-smi children must not outlive a run that never started
      throw error;
    }
    this.current = handle;
    handleRef = handle;
    for (const line of p.notes) handle.note(line);
    // A cancel that arrived while this run was being prepared.
    if (this.stopRequested === 'cancel') handle.cancel();
    if (this.stopRequested === 'kill') handle.kill();
    let outcome: RunnerOutcome;
    try {
      outcome = await handle.done;
    } finally {
      this.current = null;
      clearInterval(sampleTimer);
      clearInterval(logTimer);
    }
    if (monitor) {
      const m = monitor;
      safely(() => deps.history.storeResources(p.id, m.stop()));
    }
    safely(flushSamples);
    if (samples.length > 0) {
      // still not stored (a full disk): they wait, in order, ahead of the run's end (endWith)
      const rest = samples;
      samples = [];
      deferredWritesFor(deps.history).run(`samples of ${p.id}`, () => deps.history.appendSamples(p.id, rest));
    }
    flushLog();
    // Only a completed run's wall time says how long its configuration takes (a failed one stopped early).
    if (outcome.status === 'completed') this.finished.push({ configHash: p.spec.configHash, seconds: (Date.now() - runStarted) / 1000 });
    return this.endWith(i, { status: outcome.status, errorClass: outcome.errorClass, message: outcome.message, fix: outcome.fix, outcome });
  }
}
