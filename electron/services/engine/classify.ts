// How a run ended, named for a person: a pure function over what the orchestrator saw (exit code,
// signal, the runner's last error line, the stderr tail, whether we asked it to stop).
// The runner's own error line is the best evidence; without one (a crash, the OOM killer, a
// segfault in an op) the stderr tail is read for the well-known signatures, which live with the
// classes' texts in one table shared with the runner (resources/engine/error-signatures.json).
import fs from 'node:fs';
import { z } from 'zod';
import { ErrorClassSchema, RunnerErrorClassSchema, type ErrorClass, type ErrorMessage, type RunnerErrorClass } from '../../contract';
import { enginePath } from '../resources';

export interface RunEvidence {
  exitCode: number | null;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names the usual values; a runner may report another signal name
  signal: NodeJS.Signals | string | null;
  /** The last `error` message the runner printed, if any. */
  errorLine: Pick<ErrorMessage, 'class' | 'message' | 'fix'> | null;
  /** True when a `result` message arrived. */
  resultSeen: boolean;
  /** Last lines of stderr (oldest first). */
  stderrTail: readonly string[];
  /** Why the orchestrator stopped the runner, if it did. */
  stopReason: 'cancel' | 'timeout' | null;
  /** The wall-clock limit, for the timeout message. */
  limitSeconds?: number;
  /** Why the child could not start (spawn error), if it could not. */
  spawnError?: string | null;
  /** The first step whose loss was NaN/inf (null on the wire), if any. */
  nonFiniteLossStep?: number | null;
}

export interface Verdict {
  status: 'completed' | 'failed' | 'cancelled';
  errorClass: ErrorClass | null;
  message: string | null;
  fix: string | null;
}

// ---------------------------------------------------------------- the shared error table
// resources/engine/error-signatures.json: the classes' texts and the log signatures, read by the
// runner (errors.py) too, so the two sides cannot drift. Read once, validated at this boundary.

const SignatureSchema = z.object({
  class: RunnerErrorClassSchema,
  scope: z.enum(['any', 'exception']).default('any'),
  ignoreCase: z.boolean().default(false),
  pattern: z.string().min(1),
  message: z.string().optional(),
  fix: z.string().optional(),
  examples: z.array(z.string()).default([]),
});

export const ErrorTableSchema = z.object({
  classes: z.record(z.string(), z.object({ message: z.string(), fix: z.string().nullable(), orchestratorOnly: z.boolean().optional() })),
  pipNames: z.record(z.string(), z.string()).default({}),
  signatures: z.array(SignatureSchema),
});

export type ErrorTable = z.infer<typeof ErrorTableSchema>;
interface CompiledSignature extends z.infer<typeof SignatureSchema> {
  regex: RegExp;
}

let table: (ErrorTable & { compiled: CompiledSignature[] }) | null = null;

/** The shared table (resources/engine/error-signatures.json), parsed and compiled once. */
export function errorTable(): ErrorTable & { compiled: CompiledSignature[] } {
  if (!table) {
    const parsed = ErrorTableSchema.parse(JSON.parse(fs.readFileSync(enginePath('error-signatures.json'), 'utf8')));
    table = { ...parsed, compiled: parsed.signatures.map((s) => ({ ...s, regex: new RegExp(s.pattern, s.ignoreCase ? 'i' : '') })) };
  }
  return table;
}

/** The default fix for each class (the table's), used when the runner gives none. */
export const DEFAULT_FIX: Readonly<Record<ErrorClass, string | null>> = Object.defineProperties(
  {} as Record<ErrorClass, string | null>,
  Object.fromEntries(ErrorClassSchema.options.map((c) => [c, { enumerable: true, get: () => errorTable().classes[c]?.fix ?? null }])),
);

function fill(template: string | undefined, match: RegExpMatchArray, pipNames: Record<string, string>): string | null {
  if (template === undefined) return null;
  const group = match[1];
  if (/\{1\}|\{package\}/.test(template) && !group) return null;
  return template.replaceAll('{package}', pipNames[group ?? ''] ?? group ?? '').replaceAll('{1}', group ?? '');
}

/** The first signature of the table (scope 'any': words of healthy logs are left out) in `text`. */
export function matchSignature(text: string): { errorClass: RunnerErrorClass; message: string; fix: string | null } | null {
  const t = errorTable();
  for (const sig of t.compiled) {
    if (sig.scope !== 'any') continue;
    const match = text.match(sig.regex);
    if (match)
      return {
        errorClass: sig.class,
        message: fill(sig.message, match, t.pipNames) ?? t.classes[sig.class]?.message ?? sig.class,
        fix: fill(sig.fix, match, t.pipNames) ?? DEFAULT_FIX[sig.class],
      };
  }
  return null;
}

function lastMeaningfulLine(tail: readonly string[]): string | null {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i].trim();
    if (line && !/^\^+$|^~+$/.test(line)) return line.length > 300 ? `${line.slice(0, 300)}…` : line;
  }
  return null;
}

/** Classify the stderr tail alone (a crash without an error line). */
export function classifyStderr(tail: readonly string[]): { errorClass: ErrorClass; message: string; fix: string | null } | null {
  return matchSignature(tail.join('\n'));
}

const withLast = (message: string, tail: readonly string[]) => {
  const last = lastMeaningfulLine(tail);
  return last ? `${message} Last log line: ${last}` : message;
};

/** A Python exception's last line ("torch.distributed.DistBackendError: …", "RuntimeError: …"). */
const EXCEPTION_LINE = /^([A-Za-z_][\w]*\.)*[A-Za-z_]\w*(Error|Exception|Interrupt|Exit)\b:?/;

export function classifyRun(e: RunEvidence): Verdict {
  const fail = (errorClass: ErrorClass, message: string, fix?: string | null): Verdict => ({
    status: errorClass === 'cancelled' ? 'cancelled' : 'failed',
    errorClass,
    message,
    fix: fix === undefined || fix === null || fix === '' ? DEFAULT_FIX[errorClass] : fix,
  });

  if (e.spawnError) return fail('spawn', `The runner could not be started: ${e.spawnError}`);

  // A runner that reported a result over a NaN/inf loss (one older than the `diverged` class)
  // measured a model that no longer trains: the run failed.
  if (e.resultSeen && e.exitCode === 0 && !e.errorLine && e.nonFiniteLossStep != null)
    return fail('diverged', `The loss was NaN or infinite from step ${e.nonFiniteLossStep} on; the runner still reported a result.`);

  // A result and a clean exit is a completed run, even if a cancel raced with its last step.
  if (e.resultSeen && e.exitCode === 0 && !e.errorLine) return { status: 'completed', errorClass: null, message: null, fix: null };

  if (e.stopReason === 'cancel') return fail('cancelled', 'Cancelled by the user.');
  if (e.stopReason === 'timeout')
    return fail(
      'timeout',
      `The run exceeded its wall-clock limit${e.limitSeconds ? ` of ${Math.round(e.limitSeconds)} s` : ''} and was stopped.`,
    );

  if (e.errorLine) return fail(e.errorLine.class, e.errorLine.message, e.errorLine.fix);

  const fromLog = classifyStderr(e.stderrTail);

  // Killed outright without a word: almost always the kernel's OOM killer. Only an exception the
  // runner raised before it died says otherwise — not torch's informational lines ("[c10d] The client
  // socket has connected…", ProcessGroupNCCL warnings), which made an 8B SuperOffload run killed by
  // the OOM killer during engine start-up read as a distributed failure.
  const fromException = classifyStderr(e.stderrTail.filter((line) => EXCEPTION_LINE.test(line.trim())));
  if (e.signal === 'SIGKILL' || e.exitCode === 137)
    return fromException && fromException.errorClass !== 'host_oom'
      ? fail(fromException.errorClass, fromException.message, fromException.fix)
      : fail(
          'host_oom',
          'The runner was killed by the OS — likely out of host memory (SIGKILL without an error line).',
          DEFAULT_FIX.host_oom,
        );

  if (e.exitCode === 130 || e.signal === 'SIGINT' || e.signal === 'SIGTERM')
    return fail('cancelled', `The runner was stopped from outside the app (${e.signal ?? `exit ${e.exitCode}`}).`);

  if (fromLog) return fail(fromLog.errorClass, withLast(fromLog.message, e.stderrTail), fromLog.fix);

  // Exit 2 without an error line: Python's argparse and our spec check both use it.
  if (e.exitCode === 2) return fail('bad_config', withLast('The runner refused its arguments or spec.', e.stderrTail));

  if (e.signal) return fail('crashed', withLast(`The runner crashed (${e.signal}).`, e.stderrTail));
  if (e.exitCode !== 0)
    return fail('crashed', withLast(`The runner exited with code ${e.exitCode} without reporting an error.`, e.stderrTail));

  return fail('protocol', 'The runner exited normally without reporting a result.');
}
