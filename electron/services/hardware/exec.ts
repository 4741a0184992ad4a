// Async access to the host: run a tool with an argument vector (never a shell), read a file.
// Both answer null/an error object instead of throwing, because every source is optional.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export type ToolResult = { stdout: string } | { error: Error & { code?: string | number | null }; stdout: string };

export function runTool(file: string, args: string[], timeoutMs = 10_000): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, shell: false, windowsHide: true }, (error, stdout) => {
      if (error) resolve({ error, stdout: String(stdout ?? '') });
      else resolve({ stdout: String(stdout) });
    });
  });
}

/** stdout of a tool that succeeded, else null (tool missing, failed or timed out). */
export async function toolText(file: string, args: string[], timeoutMs?: number): Promise<string | null> {
  const r = await runTool(file, args, timeoutMs);
  return 'error' in r ? null : r.stdout;
}

export async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}
