// The backend: one handler per contract channel, composed from one module per domain
// (handlers/*.ts). Electron main, the headless server and the CLI all call `invoke`, so every
// transport serves the same contract and every payload is validated on the way in and out.
import { EventEmitter } from 'node:events';
import {
  ApiError,
  parseEvent,
  parseRequest,
  parseResponse,
  type Channel,
  type EventName,
  type EventOf,
  type RequestOf,
  type ResponseOf,
} from '../../contract';
import { openHistory } from '../history';
import type { BackendContext } from './context';
import { createMachineSource } from './machine-source';
import type { HandlerMap } from './handler-types';
import { appHandlers } from './handlers/app';
import { createNotices } from './notices';
import { wizardHandlers } from './handlers/wizard';
import { hardwareHandlers } from './handlers/hardware';
import { runsHandlers } from './handlers/runs';
import { compareHandlers } from './handlers/compare';
import { planHandlers } from './handlers/plan';
import { userConfigHandlers } from './handlers/user-config';
import { engineHandlers } from './handlers/engine';
import { measureHandlers } from './handlers/measure';
import { environmentHandlers } from './handlers/environment';
import { settingsHandlers } from './handlers/settings';
import { clusterHandlers } from './handlers/cluster';
import { slurmHandlers } from './handlers/slurm';
import { reportsHandlers } from './handlers/reports';
import { tuneHandlers } from './handlers/tune';
import { resourcesHandlers } from './handlers/resources';
import type { PdfRenderer } from '../reports';

export interface BackendOptions {
  dataDir: string;
  transport: 'electron' | 'server' | 'cli';
  /** Show and plan for a saved `detect --json` instead of detecting this machine. */
  machineFile?: string;
  /** The desktop app prints PDFs in its main process (webContents.printToPDF); default: headless Chromium. */
  reportsPdfRenderer?: PdfRenderer;
}

export interface Backend {
  readonly dataDir: string;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- RequestOf<C> documents the shape; any value is accepted and validated
  invoke<C extends Channel>(channel: C, request: RequestOf<C> | unknown): Promise<ResponseOf<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void;
  emit<E extends EventName>(event: E, payload: EventOf<E>): void;
  close(): Promise<void>;
}

export function createBackend(options: BackendOptions): Backend {
  const machine = createMachineSource(options.machineFile); // before the store opens: a bad file fails fast
  const history = openHistory(options.dataDir);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const closers: (() => void | Promise<void>)[] = [];
  const emit = <E extends EventName>(event: E, payload: EventOf<E>) => {
    emitter.emit(event, parseEvent(event, payload));
  };
  const notices = createNotices(emit, options.dataDir);
  const ctx: BackendContext = {
    dataDir: options.dataDir,
    transport: options.transport,
    history,
    machine,
    emit,
    notify: notices.notify,
    onClose: (fn) => closers.push(fn),
  };

  // `satisfies` makes the compiler check that every channel of the contract has a handler.
  const handlers = {
    ...appHandlers(ctx, notices),
    ...wizardHandlers(ctx),
    ...hardwareHandlers(ctx),
    ...runsHandlers(ctx),
    ...resourcesHandlers(ctx),
    ...compareHandlers(ctx),
    ...planHandlers(ctx),
    ...userConfigHandlers(ctx),
    ...engineHandlers(ctx),
    ...measureHandlers(ctx),
    ...environmentHandlers(ctx),
    ...settingsHandlers(ctx),
    ...clusterHandlers(ctx),
    ...slurmHandlers(ctx),
    ...reportsHandlers(ctx, { pdfRenderer: options.reportsPdfRenderer }),
    // the tune loop drives the backend's own channels (plan/compute, runs/start…)
    ...tuneHandlers(ctx, () => self),
  } satisfies HandlerMap<Channel>;

  const validatedOnce = new WeakMap<object, { channel: Channel; parsed: unknown }>();
  const self: Backend = {
    dataDir: options.dataDir,
    async invoke(channel, payload) {
      if (!Object.prototype.hasOwnProperty.call(handlers, channel))
        throw new ApiError('unknown_channel', `Unknown request '${String(channel)}'.`);
      const request = parseRequest(channel, payload);
      const handler = handlers[channel] as (r: unknown) => unknown;
      let value: unknown;
      try {
        value = await handler(request);
      } catch (error) {
        throw explainFileSystemError(error);
      }
      // A frozen answer (the history list kept between writes) cannot have changed since it was
      // checked: it is validated once, and the checked copy, frozen too, is handed out again (the
      // server then serialises it once, not per client).
      if (value !== null && typeof value === 'object' && Object.isFrozen(value)) {
        const known = validatedOnce.get(value);
        if (known && known.channel === channel) return known.parsed as ResponseOf<typeof channel>;
        const parsed = deepFreeze(parseResponse(channel, value));
        validatedOnce.set(value, { channel, parsed });
        return parsed as ResponseOf<typeof channel>;
      }
      return parseResponse(channel, value) as ResponseOf<typeof channel>;
    },
    on(event, listener) {
      const wrapped = (payload: unknown) => listener(payload as never);
      emitter.on(event, wrapped);
      return () => emitter.off(event, wrapped);
    },
    emit,
    async close() {
      for (const fn of closers.reverse()) await fn();
      history.close();
      emitter.removeAllListeners();
    },
  };
  return self;
}

/** Freezes a plain JSON-like value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * A file-system error that escaped a handler (settings, wizard, cluster, report writes), said as
 * what to do instead of Node's raw text (`ENOSPC: no space left on device, write`). The writers
 * go through the atomic write (electron/kernel), which removes its temp file when a write fails.
 */
export function explainFileSystemError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const e = error as NodeJS.ErrnoException | null;
  const where = typeof e?.path === 'string' ? e.path.replace(/\/\.([^/]+)\.[0-9a-f]{12}\.tmp$/, '/$1') : null;
  switch (e?.code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new ApiError(
        'disk_full',
        `The disk is full${where ? ` (writing ${where})` : ''}; nothing was changed. Free space on that disk and try again.`,
      );
    case 'EROFS':
      return new ApiError(
        'read_only',
        `The file system is read-only${where ? ` (writing ${where})` : ''}; nothing was changed. Choose a writable folder.`,
      );
    default:
      return error;
  }
}
