// THE API contract. Every request the renderer (or a browser, or the CLI) can make, with the
// schema of its payload and of its answer, and every event the backend pushes. Electron IPC,
// the preload bridge and the headless server all serve exactly this table; nothing else.
// Channel names are 'domain/action'.
import { z } from 'zod';
import { hardwareEvents, hardwareRequests } from './hardware';
import { runsEvents, runsRequests } from './runs';
import { compareEvents, compareRequests } from './compare';
import { planEvents, planRequests } from './plan';
import { userConfigEvents, userConfigRequests } from './user-config';
import { engineEvents, engineRequests } from './engine';
import { measureEvents, measureRequests } from './measure';
import { environmentEvents, environmentRequests } from './environment';
import { reportsEvents, reportsRequests } from './reports';
import { settingsEvents, settingsRequests } from './settings';
import { clusterEvents, clusterRequests } from './cluster';
import { slurmEvents, slurmRequests } from './slurm';
import { wizardEvents, wizardRequests } from './wizard';
import { tuneEvents, tuneRequests } from './tune';
import { resourcesEvents, resourcesRequests } from './resources';
import { Empty } from './common';

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  dataDir: z.string(),
  transport: z.enum(['electron', 'server', 'cli']),
  platform: z.string(),
});

// A message shown to the user by the backend (e.g. a run left 'running' was marked interrupted).
// The backend keeps it until a client acknowledges it (app/notice-ack): a notice raised before any
// window or browser is connected (the recovery notice at start-up) is read with app/notices.
export const NoticeSchema = z.object({
  id: z.string(),
  level: z.enum(['info', 'warning', 'error']),
  message: z.string(),
});

const appRequests = {
  'app/info': { request: Empty, response: AppInfoSchema },
  /** The notices no client has acknowledged yet, oldest first. */
  'app/notices': { request: Empty, response: z.object({ notices: z.array(NoticeSchema) }) },
  /** Shown to the user: forget it (every client). False when it was already acknowledged or unknown. */
  'app/notice-ack': {
    request: z.object({ id: z.string().min(1).max(100) }).strict(),
    response: z.object({ acknowledged: z.boolean() }),
  },
} as const;

const appEvents = {
  'app/notice': NoticeSchema,
} as const;

// Each domain declares its own channels in its own contract file; this is the one table.
export const requests = {
  ...appRequests,
  ...hardwareRequests,
  ...wizardRequests,
  ...measureRequests,
  ...environmentRequests,
  ...planRequests,
  ...userConfigRequests,
  ...engineRequests,
  ...runsRequests,
  ...settingsRequests,
  ...clusterRequests,
  ...slurmRequests,
  ...compareRequests,
  ...reportsRequests,
  ...tuneRequests,
  ...resourcesRequests,
} as const;

export const events = {
  ...appEvents,
  ...hardwareEvents,
  ...wizardEvents,
  ...measureEvents,
  ...environmentEvents,
  ...planEvents,
  ...userConfigEvents,
  ...engineEvents,
  ...runsEvents,
  ...settingsEvents,
  ...clusterEvents,
  ...slurmEvents,
  ...compareEvents,
  ...reportsEvents,
  ...tuneEvents,
  ...resourcesEvents,
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
