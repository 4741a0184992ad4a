// The browser transport: the headless server's WebSocket. Requests carry an id; answers and
// events come back on the same socket. Reconnects with backoff if the server restarts.
import type { ApiClient, Channel, EventName, WireResult } from '../../../electron/contract';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class ClientError extends Error {
  constructor(public code: string, message: string, public field?: string) {
    super(message);
  }
}

export function createWebSocketClient(url: string): ApiClient {
  let socket: WebSocket | null = null;
  let opened: Promise<WebSocket> | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();

  function connect(): Promise<WebSocket> {
    if (opened) return opened;
    opened = new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        socket = ws;
        resolve(ws);
      };
      ws.onerror = () => reject(new ClientError('disconnected', 'Cannot reach the Offload Studio server. Is `npm run serve` still running?'));
      ws.onclose = () => {
        socket = null;
        opened = null;
        for (const [, p] of pending) p.reject(new ClientError('disconnected', 'The connection to the server closed.'));
        pending.clear();
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
      const ws = socket ?? (await connect());
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, channel, payload: request }));
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
