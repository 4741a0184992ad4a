// The one client interface the renderer talks through. Two transports implement it:
// the Electron preload object and the WebSocket of the headless server.
import type { Channel, EventName, EventOf, RequestOf, ResponseOf } from './channels';

export interface ApiClient {
  invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventOf<E>) => void): () => void;
}

/** What a request returns over a wire: a value or a named error. */
export type WireResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; field?: string } };

/** The error a backend handler raises; `code` is stable, `message` says what to do. */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** How an error crosses a process boundary (IPC, WebSocket, HTTP): a stable code, a message that says what to do, the field. */
export function toWireError(error: unknown): { code: string; message: string; field?: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message, field: error.field };
  if (error instanceof SyntaxError) return { code: 'bad_request', message: 'Request is not valid JSON.' };
  const e = error as { code?: unknown; message?: unknown };
  return { code: typeof e?.code === 'string' ? e.code : 'internal', message: String(e?.message ?? error) };
}
