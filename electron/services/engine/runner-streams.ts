// What a run's two streams say, wherever the runner runs (a child process here, a Slurm job whose files
// are tailed): stdout is JSON lines (the result, an error line, the first non-finite loss), stderr is the
// log, of which a tail is kept for the failure classes. One reader, so a job and a child are judged alike.
import type { ErrorMessage, ResultMessage, RunnerMessage } from '../../contract';
import { LineSplitter, createStdoutParser } from './jsonl';
import type { RunnerOutcome } from './runner-process';

export interface RunnerStreams {
  stdout: LineSplitter;
  stderr: LineSplitter;
  result: ResultMessage | null;
  errorLine: ErrorMessage | null;
  /** The first step whose loss was NaN/inf (it arrives as null: jsonl.ts); it decides `diverged` (classify.ts). */
  nonFiniteLossStep: number | null;
  protocolErrors: number;
  /** The last stderr lines, oldest first. */
  tail: string[];
}

export function createRunnerStreams(
  onMessage: ((message: RunnerMessage) => void) | undefined,
  logLine: (line: string) => void,
  tailMax = 200,
): RunnerStreams {
  const s = { result: null, errorLine: null, nonFiniteLossStep: null, protocolErrors: 0, tail: [] } as Omit<
    RunnerStreams,
    'stdout' | 'stderr'
  >;
  const stdout = createStdoutParser({
    message(message) {
      if (message.type === 'result') s.result = message;
      if (message.type === 'error') s.errorLine = message;
      if (message.type === 'step' && message.loss === null && s.nonFiniteLossStep === null) s.nonFiniteLossStep = message.step;
      // Whatever the handler does with a runner's values, an exception must not escape the stream's
      // 'data' listener: that would end the whole process (serve), not just this run.
      try {
        onMessage?.(message);
      } catch (error) {
        s.protocolErrors++;
        logLine(
          `[offload-studio] a '${message.type}' message could not be handled: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`,
        );
      }
    },
    log: logLine,
    protocolError: () => s.protocolErrors++,
  });
  // stderr is the log as it is; split into lines only to keep a tail and stream events.
  const stderr = new LineSplitter(
    {
      line(text) {
        s.tail.push(text);
        if (s.tail.length > tailMax) s.tail.shift();
        logLine(text);
      },
      overflow: (bytes) => logLine(`[log] a stderr line of ${bytes} bytes was too long to keep`),
    },
    1024 * 1024,
  );
  return Object.assign(s, { stdout, stderr });
}

/** The streams' part of a run's outcome (runner-process.ts RunnerOutcome), the tail copied as it is now. */
export function streamsOutcome(s: RunnerStreams): Pick<RunnerOutcome, 'result' | 'errorLine' | 'stderrTail' | 'protocolErrors'> {
  return { result: s.result, errorLine: s.errorLine, stderrTail: [...s.tail], protocolErrors: s.protocolErrors };
}
