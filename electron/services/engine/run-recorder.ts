// One run's runner messages and log lines into history and the live events, in batches: samples
// in one transaction per flush (per step would cost a WAL commit each), log lines in one event per
// flush (a noisy op build prints thousands of lines). Every write and event is guarded: nothing the
// runner sends, and no failed write, may throw out of its stdout handler or a timer and end the process.
import { toRunSample, type RunProgressEvent, type RunSample, type RunnerMessage } from '../../contract';
import type { HistoryStore } from '../history';
import type { ResourceMonitor } from '../monitor';
import { deferredWritesFor } from './deferred-writes';
import type { RunnerHandle } from './runner-process';

const LOG_BATCH_LINES = 200;

type StepMessage = Extract<RunnerMessage, { type: 'step' }>;

/** Emits an event; a listener or validation error is reported on stderr, never thrown into a
 *  child's stdout handler or a timer (either would end the whole process). */
export function guardEmit(emitEvent: () => void): void {
  try {
    emitEvent();
  } catch (error) {
    console.error(`[offload-studio] an engine event was dropped: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
  }
}

/** The run's clock at a step: when its first step ended (start-up excluded) and how many were seen. */
export interface StepClock {
  firstStepAt: number;
  stepsSeen: number;
}

export interface RunRecorderOptions {
  runId: string;
  /** The steps the spec asks for: more are neither stored nor streamed. */
  total: number;
  history: HistoryStore;
  /** A batch of the run's log lines, as runs/log sends them. */
  log(lines: string[]): void;
  /** A step's progress event, made by the sweep (where it stands, its estimate) around the stored sample. */
  progress(sample: RunSample, step: StepMessage, now: number, clock: StepClock): RunProgressEvent;
  emitProgress(event: RunProgressEvent): void;
  sampleFlushMs?: number;
  sampleBatch?: number;
  logFlushMs?: number;
}

export class RunRecorder {
  private samples: RunSample[] = [];
  private lines: string[] = [];
  private previousStepAt = Date.now();
  private readonly clock: StepClock = { firstStepAt: 0, stepsSeen: 0 };
  private overflowNoted = false;
  private emitErrorNoted = false;
  private runner: RunnerHandle | null = null;
  private monitor: ResourceMonitor | null = null;
  private readonly sampleFlushMs: number;
  private readonly sampleTimer: NodeJS.Timeout;
  private readonly logTimer: NodeJS.Timeout;

  constructor(private readonly o: RunRecorderOptions) {
    // A step that came `sampleFlushMs` or more after the previous one is stored at once: runs whose
    // steps are slower than the interval keep every step as it comes (a kill loses none); fast ones
    // still pay one commit per interval.
    this.sampleFlushMs = o.sampleFlushMs ?? 1000;
    this.sampleTimer = setInterval(() => this.safely(() => this.flushSamples()), this.sampleFlushMs);
    this.logTimer = setInterval(() => this.flushLog(), o.logFlushMs ?? 250);
  }

  /** Once started, lines of ours go through the runner's handle (its log file and the live log). */
  attach(runner: RunnerHandle): void {
    this.runner = runner;
  }

  /** The resource monitor beside the runner: each step is marked on its timeline. */
  watch(monitor: ResourceMonitor): void {
    this.monitor = monitor;
  }

  /** A line of ours into the run's log file and the live log (once the runner is started). */
  note(line: string): void {
    if (this.runner) this.runner.note(line);
    else this.lines.push(line);
  }

  /** A line of the runner's log. */
  onLog(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= LOG_BATCH_LINES) this.flushLog();
  }

  onMessage(m: RunnerMessage): void {
    const { history, runId } = this.o;
    switch (m.type) {
      case 'hello':
        this.safely(() => history.recordHello(runId, m));
        break;
      case 'config':
        this.safely(() => history.recordConfig(runId, m));
        break;
      case 'step':
        this.onStep(m);
        break;
      case 'preflight':
        // Shown in the log view as the runner's own checks, one line each.
        for (const check of m.checks) {
          const detail = typeof check.detail === 'string' ? ` — ${check.detail}` : '';
          // A failed warning (memlock, GPU memory) does not stop the run: WARN, not FAIL.
          const verdict = check.ok ? 'ok  ' : (check as { severity?: unknown }).severity === 'warning' ? 'WARN' : 'FAIL';
          this.lines.push(`[preflight] ${verdict} ${check.name}${detail}`);
        }
        break;
      default:
        break;
    }
  }

  private onStep(m: StepMessage): void {
    const { total } = this.o;
    const clock = this.clock;
    // A runner that reports more steps than the spec asked for (a bug, or a hostile runner
    // printing a million lines) does not get them stored or streamed: the run has `total`.
    if (m.step > total || clock.stepsSeen >= total) {
      if (!this.overflowNoted) {
        this.overflowNoted = true;
        this.note(
          `[offload-studio] the runner reported more steps than the ${total} this run asked for; steps after ${total} were not stored.`,
        );
      }
      return;
    }
    const sample = toRunSample(m);
    this.samples.push(sample);
    const now = Date.now();
    // The step's end in the monitor's clock: the runner's own stamp when it is this host's clock (within 5 s), else arrival.
    const at = Number.isFinite(m.t) && Math.abs(m.t * 1000 - now) < 5000 ? m.t * 1000 : now;
    this.safely(() => this.monitor?.markStep(m, at));
    const slowStep = now - this.previousStepAt >= this.sampleFlushMs;
    this.previousStepAt = now;
    if (slowStep || this.samples.length >= (this.o.sampleBatch ?? 64)) this.safely(() => this.flushSamples());
    clock.stepsSeen++;
    // A step time that is not a sane finite number of seconds does not start the clock.
    if (clock.stepsSeen === 1)
      clock.firstStepAt = now - (Number.isFinite(m.stepSeconds) && m.stepSeconds >= 0 ? Math.min(m.stepSeconds, 1e7) : 0) * 1000;
    this.emitSafely(() => this.o.emitProgress(this.o.progress(sample, m, now, clock)));
  }

  /** Stops the batching timers (the runner has ended, or never started). */
  stopTimers(): void {
    clearInterval(this.sampleTimer);
    clearInterval(this.logTimer);
  }

  /** After the runner: the monitor's record stored, the last samples and log lines flushed. */
  finish(): void {
    this.stopTimers();
    const { history, runId } = this.o;
    const monitor = this.monitor;
    if (monitor) this.safely(() => history.storeResources(runId, monitor.stop()));
    this.safely(() => this.flushSamples());
    if (this.samples.length > 0) {
      // still not stored (a full disk): they wait, in order, ahead of the run's end (the sweep's endWith)
      const rest = this.samples;
      this.samples = [];
      deferredWritesFor(history).run(`samples of ${runId}`, () => history.appendSamples(runId, rest));
    }
    this.flushLog();
  }

  private flushSamples(): void {
    if (this.samples.length === 0) return;
    const batch = this.samples;
    this.samples = [];
    try {
      this.o.history.appendSamples(this.o.runId, batch);
    } catch (error) {
      this.samples = batch.concat(this.samples); // kept for the next flush (a full disk may free up); bounded by the spec's steps
      throw error;
    }
  }

  private flushLog(): void {
    if (this.lines.length === 0) return;
    const batch = this.lines;
    this.lines = [];
    guardEmit(() => this.o.log(batch));
  }

  /** A write that failed is said in the log; the run goes on. */
  safely(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.lines.push(`[offload-studio] could not store: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** An event a runner's values made invalid (the contract refuses it) is dropped with a log line. */
  private emitSafely(emitEvent: () => void): void {
    try {
      emitEvent();
    } catch (error) {
      if (this.emitErrorNoted) return;
      this.emitErrorNoted = true;
      this.note(
        `[offload-studio] a progress event was dropped (the runner sent values outside the contract): ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`,
      );
    }
  }
}
