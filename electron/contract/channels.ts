// THE API contract. Every request the renderer (or a browser, or the CLI) can make, with the
// schema of its payload and of its answer, and every event the backend pushes. Electron IPC,
// the preload bridge and the headless server all serve exactly this table; nothing else.
// Channel names are 'domain/action'.
import { z } from 'zod';
import { MachineSchema } from './hardware';
import { RunFilterSchema, RunSummarySchema } from './runs';

const Empty = z.object({}).strict();

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  dataDir: z.string(),
  transport: z.enum(['electron', 'server', 'cli']),
  platform: z.string(),
});

export const requests = {
  'app/info': { request: Empty, response: AppInfoSchema },
  'hardware/detect': {
    request: z.object({ refresh: z.boolean().optional() }).strict(),
    response: MachineSchema,
  },
  'runs/list': {
    request: RunFilterSchema,
    response: z.object({ runs: z.array(RunSummarySchema), total: z.number().int() }),
  },
} as const;

export const events = {
  // A message shown to the user by the backend (e.g. a run left 'running' was marked interrupted).
  'app/notice': z.object({ level: z.enum(['info', 'warning', 'error']), message: z.string() }),
} as const;

export type Channel = keyof typeof requests;
export type EventName = keyof typeof events;
export type RequestOf<C extends Channel> = z.input<(typeof requests)[C]['request']>;
export type ResponseOf<C extends Channel> = z.infer<(typeof requests)[C]['response']>;
export type EventOf<E extends EventName> = z.infer<(typeof events)[E]>;

export const channels = Object.keys(requests) as Channel[];
export const eventNames = Object.keys(events) as EventName[];

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(requests, name);
}
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}
