// ssh as a child process with an argument vector (never a shell on this side). The remote side
// joins the words into a shell line, so every remote word is quoted for a POSIX shell here, on
// top of the patterns the contract holds paths to: a path with a space (the app's own venv under
// "…/Offload Studio") stays one word, and no value can become a command. Output is bounded and
// every call has a timeout.
import { spawn } from 'node:child_process';

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError: string | null;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

export function execFileWithInput(
  file: string,
  args: string[],
  input: string | null,
  timeoutMs: number,
  env?: NodeJS.ProcessEnv,
): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { shell: false, stdio: ['pipe', 'pipe', 'pipe'], env: env ?? process.env });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let spawnError: string | null = null;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += d.toString();
    });
    child.on('error', (error) => {
      spawnError = error.message;
    });
    child.stdin.on('error', () => {}); // the remote may exit before reading all of stdin
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut, spawnError });
    });
    child.stdin.end(input ?? '');
  });
}

/** One word for the remote POSIX shell: single-quoted, a `'` inside written as `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `ssh -F <config> -- <host> '<word>' '<word>'…`: the config carries user, port, key and host-key
 * policy; the remote words go as one command line, each word quoted.
 */
export function sshArgv(sshConfigPath: string, host: string, remote: string[]): string[] {
  return ['-F', sshConfigPath, '-o', 'BatchMode=yes', '--', host, remote.map(shellQuote).join(' ')];
}

export function runSsh(
  sshConfigPath: string,
  host: string,
  remote: string[],
  input: string | null,
  timeoutMs = 20_000,
): Promise<ExecResult> {
  return execFileWithInput('ssh', sshArgv(sshConfigPath, host, remote), input, timeoutMs);
}

/** The last line of stdout that parses as a JSON object. */
export function lastJsonObject(stdout: string): Record<string, unknown> | null {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not JSON: a warning printed by an import, keep looking
    }
  }
  return null;
}
