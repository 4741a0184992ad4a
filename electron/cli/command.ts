import type { Backend } from '../services/backend';

export interface CommandContext {
  backend: Backend;
  flags: Record<string, string | boolean>;
  positionals: string[];
  json: boolean;
  out(line: string): void;
}

export interface Command {
  summary: string;
  /** Returns the process exit code. */
  run(context: CommandContext): Promise<number>;
}
