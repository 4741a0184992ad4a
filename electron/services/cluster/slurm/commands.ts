// Slurm's client commands, run with an argument vector (never a shell). Their stderr is Slurm's own
// message, which is what the user is shown when Slurm refuses something.
import { execFile } from 'node:child_process';

export interface SlurmCall {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the command could not be started at all (not installed, not on PATH). */
  missing: boolean;
}

export type SlurmRunner = (command: string, args: string[], options?: { timeoutMs?: number }) => Promise<SlurmCall>;

export const runSlurm: SlurmRunner = (command, args, options = {}) =>
  new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8', windowsHide: true },
      (error, stdout, stderr) => {
        const errno = (error as NodeJS.ErrnoException | null)?.code;
        const missing = errno === 'ENOENT' || errno === 'EACCES';
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0;
        resolve({
          code: missing ? null : code,
          stdout: stdout ?? '',
          stderr: (stderr ?? '').trim() || (missing ? `${command}: not found` : ''),
          missing,
        });
      },
    );
  });

/** Slurm's message for a failed call, one line. */
export function slurmMessage(call: SlurmCall): string {
  const text = (call.stderr || call.stdout).trim().split('\n').filter(Boolean).slice(-3).join(' ');
  return text || `exit ${call.code ?? 'unknown'}`;
}
