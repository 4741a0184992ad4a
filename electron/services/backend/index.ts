// The backend: one handler per contract channel, wired to the services. Electron main, the
// headless server and the CLI all call `invoke`, so every transport serves the same contract
// and every payload is validated on the way in and on the way out.
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
import { detectMachine } from '../hardware';
import { openHistory } from '../history';
import { appVersion } from './version';

export interface BackendOptions {
  dataDir: string;
  transport: 'electron' | 'server' | 'cli';
}

type Handlers = {
  [C in Channel]: (request: ResponseOfRequest<C>) => Promise<ResponseOf<C>> | ResponseOf<C>;
};
type ResponseOfRequest<C extends Channel> = ReturnType<typeof parseRequest<C>>;

export interface Backend {
  readonly dataDir: string;
  invoke<C extends Channel>(channel: C, request: RequestOf<C> | unknown): Promise<ResponseOf<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void;
  emit<E extends EventName>(event: E, payload: EventOf<E>): void;
  close(): void;
}

export function createBackend(options: BackendOptions): Backend {
  const history = openHistory(options.dataDir);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  let machineCache: Promise<ResponseOf<'hardware/detect'>> | null = null;

  const handlers: Handlers = {
    'app/info': () => ({
      name: 'Offload Studio',
      version: appVersion(),
      dataDir: options.dataDir,
      transport: options.transport,
      platform: process.platform,
    }),
    'hardware/detect': (request) => {
      if (!machineCache || request.refresh) machineCache = detectMachine();
      return machineCache;
    },
    'runs/list': (request) => history.listRuns(request),
  };

  const backend: Backend = {
    dataDir: options.dataDir,
    async invoke(channel, payload) {
      if (!Object.prototype.hasOwnProperty.call(handlers, channel))
        throw new ApiError('unknown_channel', `Unknown request '${String(channel)}'.`);
      const request = parseRequest(channel, payload);
      const handler = handlers[channel] as (r: unknown) => unknown;
      const value = await handler(request);
      return parseResponse(channel, value) as ResponseOf<typeof channel>;
    },
    on(event, listener) {
      const wrapped = (payload: unknown) => listener(payload as never);
      emitter.on(event, wrapped);
      return () => emitter.off(event, wrapped);
    },
    emit(event, payload) {
      emitter.emit(event, parseEvent(event, payload));
    },
    close() {
      history.close();
      emitter.removeAllListeners();
    },
  };
  return backend;
}
