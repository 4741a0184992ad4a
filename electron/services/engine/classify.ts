// How a run ended, named for a person: a pure function over what the orchestrator saw (exit code,
// signal, the runner's last error line, the stderr tail, whether we asked it to stop).
// The runner's own error line is the best evidence; without one (a crash, the OOM killer, a
// segfault in an op) the stderr tail is read for the well-known signatures.
import type { ErrorClass, ErrorMessage } from '../../contract';

export interface RunEvidence {
  exitCode: number | null;
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
}

export interface Verdict {
  status: 'completed' | 'failed' | 'cancelled';
  errorClass: ErrorClass | null;
  message: string | null;
  fix: string | null;
}

/** The default fix for each class, used when the runner gives none. */
export const DEFAULT_FIX: Record<ErrorClass, string | null> = {
  cuda_oom: 'Lower the micro batch or the sequence length, turn activation checkpointing on, or pick a strategy that offloads more (ZeRO-3 with parameter offload).',
  host_oom: 'Free host memory (close other jobs), lower the micro batch, set offload pin_memory to false, or offload to NVMe instead of CPU memory.',
  op_build: 'Install a C++ compiler and ninja in the engine environment (e.g. `apt install build-essential` and `pip install ninja`), or install DeepSpeed with the op prebuilt (DS_BUILD_CPU_ADAM=1 pip install deepspeed).',
  distributed: 'Check that no other job holds the rendezvous port, that every GPU is visible (CUDA_VISIBLE_DEVICES) and healthy, and rerun with NCCL_DEBUG=INFO to see which link failed.',
  missing_package: 'Install the missing package into the engine environment (Setup → Environment shows the command).',
  bad_config: 'Check the workload and strategy settings (batch identity, precision, offload fields) against the plan, and regenerate the config.',
  timeout: 'Raise the per-run time limit, or lower the steps or the model size; a first run also spends minutes building CPU Adam.',
  cancelled: null,
  unsupported: 'Pick a strategy this machine supports (the plan marks which ones fit).',
  internal: 'This is a bug in the runner: report it with the run log attached.',
  crashed: 'Read the end of the run log; rerun once to see whether it is reproducible, and report it with the log if so.',
  protocol: 'The runner and the app disagree on the protocol: reinstall the app so the bundled runner matches, and report it with the log.',
  spawn: 'Check that the Python interpreter exists and is executable (Setup → Environment), or pass --python.',
};

interface Signature {
  errorClass: ErrorClass;
  pattern: RegExp;
  message: (match: RegExpMatchArray) => string;
  fix?: (match: RegExpMatchArray) => string;
}

// Order matters: the most specific first (a CUDA OOM traceback also says "RuntimeError").
const SIGNATURES: Signature[] = [
  {
    errorClass: 'cuda_oom',
    pattern: /CUDA out of memory|torch\.(?:cuda\.)?OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|HIP out of memory/i,
    message: () => 'The GPU ran out of memory.',
  },
  {
    errorClass: 'host_oom',
    pattern: /\bMemoryError\b|std::bad_alloc|Cannot allocate memory|DefaultCPUAllocator: (?:can't|not enough memory)|Out of memory: Killed process/i,
    message: () => 'The host ran out of memory.',
  },
  {
    errorClass: 'missing_package',
    pattern: /ModuleNotFoundError: No module named '([^']+)'/,
    message: (m) => `The Python package '${m[1].split('.')[0]}' is missing from the engine environment.`,
    fix: (m) => `Install it into the engine environment: <python> -m pip install ${m[1].split('.')[0]} (Setup → Environment).`,
  },
  {
    errorClass: 'op_build',
    pattern: /Error building extension '([^']+)'|ninja: build stopped|(?:c\+\+|g\+\+|gcc|nvcc): (?:command )?not found|Ninja is required to load C\+\+ extensions|fatal error: [^\n]*\.h: No such file/i,
    message: (m) => (m[1] ? `Building the DeepSpeed op '${m[1]}' failed.` : 'Building a DeepSpeed C++/CUDA op failed.'),
  },
  {
    errorClass: 'distributed',
    pattern: /NCCL error|ncclInternalError|ncclSystemError|ProcessGroupNCCL|DistNetworkError|Gloo connectFullMesh failed|address already in use|c10d|torch\.distributed\.elastic|ChildFailedError/i,
    message: () => 'The distributed (NCCL/gloo) communication failed.',
  },
];

function lastMeaningfulLine(tail: readonly string[]): string | null {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i].trim();
    if (line && !/^\^+$|^~+$/.test(line)) return line.length > 300 ? `${line.slice(0, 300)}…` : line;
  }
  return null;
}

/** Classify the stderr tail alone (a crash without an error line). */
export function classifyStderr(tail: readonly string[]): { errorClass: ErrorClass; message: string; fix: string | null } | null {
  const text = tail.join('\n');
  for (const sig of SIGNATURES) {
    const match = text.match(sig.pattern);
    if (match) return { errorClass: sig.errorClass, message: sig.message(match), fix: sig.fix ? sig.fix(match) : DEFAULT_FIX[sig.errorClass] };
  }
  return null;
}

const withLast = (message: string, tail: readonly string[]) => {
  const last = lastMeaningfulLine(tail);
  return last ? `${message} Last log line: ${last}` : message;
};

export function classifyRun(e: RunEvidence): Verdict {
  const fail = (errorClass: ErrorClass, message: string, fix?: string | null): Verdict => ({
    status: errorClass === 'cancelled' ? 'cancelled' : 'failed',
    errorClass,
    message,
    fix: fix === undefined || fix === null || fix === '' ? DEFAULT_FIX[errorClass] : fix,
  });

  if (e.spawnError) return fail('spawn', `The runner could not be started: ${e.spawnError}`);

  // A result and a clean exit is a completed run, even if a cancel raced with its last step.
  if (e.resultSeen && e.exitCode === 0 && !e.errorLine) return { status: 'completed', errorClass: null, message: null, fix: null };

  if (e.stopReason === 'cancel') return fail('cancelled', 'Cancelled by the user.');
  if (e.stopReason === 'timeout')
    return fail('timeout', `The run exceeded its wall-clock limit${e.limitSeconds ? ` of ${Math.round(e.limitSeconds)} s` : ''} and was stopped.`);

  if (e.errorLine) return fail(e.errorLine.class, e.errorLine.message, e.errorLine.fix);

  const fromLog = classifyStderr(e.stderrTail);

  // Killed outright without a word: almost always the kernel's OOM killer.
  if (e.signal === 'SIGKILL' || e.exitCode === 137)
    return fromLog && fromLog.errorClass !== 'host_oom'
      ? fail(fromLog.errorClass, fromLog.message, fromLog.fix)
      : fail('host_oom', 'The runner was killed by the OS — likely out of host memory (SIGKILL without an error line).', DEFAULT_FIX.host_oom);

  if (e.exitCode === 130 || e.signal === 'SIGINT' || e.signal === 'SIGTERM')
    return fail('cancelled', `The runner was stopped from outside the app (${e.signal ?? `exit ${e.exitCode}`}).`);

  if (fromLog) return fail(fromLog.errorClass, withLast(fromLog.message, e.stderrTail), fromLog.fix);

  // Exit 2 without an error line: Python's argparse and our spec check both use it.
  if (e.exitCode === 2) return fail('bad_config', withLast('The runner refused its arguments or spec.', e.stderrTail));

  if (e.signal) return fail('crashed', withLast(`The runner crashed (${e.signal}).`, e.stderrTail));
  if (e.exitCode !== 0) return fail('crashed', withLast(`The runner exited with code ${e.exitCode} without reporting an error.`, e.stderrTail));

  return fail('protocol', 'The runner exited normally without reporting a result.');
}
