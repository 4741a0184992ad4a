// The browser transport: the headless server's WebSocket. Requests carry an id; answers and
// events come back on the same socket. While events are listened for, it reconnects with
// exponential backoff when the socket closes (a server restart), and the listeners keep receiving.
import {
  WIRE_IMPORT_MAX_BYTES,
  WIRE_MESSAGE_MAX_BYTES,
  type ApiClient,
  type Channel,
  type EventName,
  type WireResult,
} from '../../../electron/contract';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class ClientError extends Error {
  constructor(
    public code: string,
    message: string,
    public field?: string,
  ) {
    super(message);
  }
}

/** The few WebSocket members used here, so a test can hand in a fake. */
export interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
}

export interface WebSocketClientOptions {
  /** The WebSocket constructor (default: the browser's). */
  WebSocket?: new (url: string) => SocketLike;
  /** First wait before reconnecting, doubled after each failed try up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Requests connect on demand. While anyone listens for events, a closed or failed socket is
 * reconnected by itself, with exponential backoff (initialDelayMs doubling to maxDelayMs, back to
 * the start once a socket opens); the listeners stay registered, so events of the new socket reach
 * them. Requests in flight when a socket closes are rejected ('disconnected'), never resent.
 */
export function createWebSocketClient(url: string, options: WebSocketClientOptions = {}): ApiClient {
  const Socket = options.WebSocket ?? (WebSocket as unknown as new (url: string) => SocketLike);
  const initialDelayMs = options.initialDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  let socket: SocketLike | null = null;
  let opened: Promise<SocketLike> | null = null;
  let nextId = 1;
  let delayMs = initialDelayMs;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const pending = new Map<number, Pending>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();

  const listening = () => [...listeners.values()].some((set) => set.size > 0);

  function scheduleReconnect() {
    if (retry || !listening()) return;
    const wait = delayMs;
    delayMs = Math.min(delayMs * 2, maxDelayMs);
    retry = setTimeout(() => {
      retry = null;
      void connect().catch(() => undefined); // a failure closes the socket, which schedules the next try
    }, wait);
  }

  function connect(): Promise<SocketLike> {
    if (opened) return opened;
    if (retry) {
      clearTimeout(retry);
      retry = null;
    }
    opened = new Promise((resolve, reject) => {
      const ws = new Socket(url);
      ws.onopen = () => {
        socket = ws;
        delayMs = initialDelayMs;
        resolve(ws);
      };
      ws.onerror = () =>
        reject(new ClientError('disconnected', 'Cannot reach the Offload Studio server. Is `npm run serve` still running?'));
      ws.onclose = () => {
        if (socket === ws) socket = null;
        opened = null;
        reject(new ClientError('disconnected', 'Cannot reach the Offload Studio server. Is `npm run serve` still running?'));
        for (const [, p] of pending) p.reject(new ClientError('disconnected', 'The connection to the server closed.'));
        pending.clear();
        scheduleReconnect();
      };
      ws.onmessage = (message) => {
        const data = JSON.parse(String(message.data)) as { id?: number; result?: WireResult<unknown>; event?: string; payload?: unknown };
        if (data.event) {
          listeners.get(data.event)?.forEach((l) => l(data.payload));
          return;
        }
        const entry = data.id !== undefined ? pending.get(data.id) : undefined;
        if (!entry || !data.result) return;
        pending.delete(data.id!);
        if (data.result.ok) entry.resolve(data.result.value);
        else entry.reject(new ClientError(data.result.error.code, data.result.error.message, data.result.error.field));
      };
    });
    return opened;
  }

  return {
    async invoke(channel: Channel, request: unknown) {
      const id = nextId++;
      const text = JSON.stringify({ id, channel, payload: request });
      // Said here, with the size, rather than by a socket the server closes.
      const limit = channel === 'runs/import' ? WIRE_IMPORT_MAX_BYTES : WIRE_MESSAGE_MAX_BYTES;
      const bytes = new TextEncoder().encode(text).length;
      if (bytes > limit)
        throw new ClientError(
          'too_large',
          `This ${channel} request is ${(bytes / 2 ** 20).toFixed(1)} MiB; the server takes at most ${(limit / 2 ** 20).toFixed(1)} MiB.`,
        );
      const ws = socket ?? (await connect());
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ws.send(text);
      }) as never;
    },
    on(event: EventName, listener: (payload: never) => void) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      const set = listeners.get(event)!;
      const l = listener as (payload: unknown) => void;
      set.add(l);
      void connect().catch(() => undefined);
      return () => set.delete(l);
    },
  };
}
