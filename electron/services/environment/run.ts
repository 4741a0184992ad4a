// Child processes for the environment service: an argument vector, shell: false, async, with
// a timeout. Output is collected (capped) for the probe and --version checks.
import { execFile } from 'node:child_process';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error: string | null; // spawn error (ENOENT, EACCES) or null
}

export function run(
  file: string,
  args: string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string; signal?: AbortSignal },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        shell: false,
        windowsHide: true,
        env: options.env,
        cwd: options.cwd,
        signal: options.signal, // aborted: the child is killed (killSignal) and `error` says ABORT_ERR
      },
      (error, stdout, stderr) => {
        const e = error as (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          stdout: String(stdout ?? ''),
          stderr: String(stderr ?? ''),
          timedOut: !!e?.killed,
          error: e && typeof e.code === 'string' ? `${e.code}: ${e.message.split('\n')[0]}` : null,
        });
      },
    );
  });
}
