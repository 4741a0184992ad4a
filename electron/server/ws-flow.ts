// Flow control for one WebSocket of the contract: a client cannot make serve hold more than a
// bounded amount for it. Requests in flight (received, answer not yet flushed to the socket) are
// capped per socket: past the cap the socket is paused (TCP pushes back on the client) and frames
// already read wait in a queue. A socket whose unsent output (`bufferedAmount`: answers and events
// the client is not reading) passes a cap is closed: one stalled client must not grow serve to
// an out-of-memory crash (1 MB runs/list answers to a client that stopped reading did, in ~6 s).
import type { RawData, WebSocket } from 'ws';

export const MAX_IN_FLIGHT_PER_SOCKET = 16;
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

export interface FlowOptions {
  maxInFlight?: number;
  maxBufferedBytes?: number;
  /** Handles one request frame; resolves with the answer's text. */
  handle(data: RawData): Promise<string>;
}

export interface Flow {
  /** Sends an event (dropped, and the socket closed, when the client is too far behind). */
  sendEvent(text: string): void;
}

export function attachFlow(ws: WebSocket, options: FlowOptions): Flow {
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT_PER_SOCKET;
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const queue: RawData[] = [];
  let inFlight = 0;
  let paused = false;
  let closed = false;

  const tooFarBehind = (): boolean => {
    if (closed || ws.readyState !== ws.OPEN) return true;
    if (ws.bufferedAmount <= maxBuffered) return false;
    // 1008 policy violation; terminate: a close frame would queue behind what it does not read.
    closed = true;
    queue.length = 0;
    ws.terminate();
    return true;
  };

  const settle = () => {
    inFlight--;
    pump();
  };

  const pump = () => {
    while (!closed && inFlight < maxInFlight && queue.length > 0) start(queue.shift()!);
    if (closed) return;
    if (paused && inFlight < maxInFlight && queue.length === 0) {
      paused = false;
      ws.resume();
    }
  };

  const start = (data: RawData) => {
    inFlight++;
    void options
      .handle(data)
      .then((answer) => {
        if (tooFarBehind()) return settle();
        // In flight until the answer is handed to the socket: bounded memory per client.
        ws.send(answer, () => settle());
      })
      .catch(() => settle());
  };

  ws.on('message', (data) => {
    if (closed) return;
    if (inFlight >= maxInFlight) {
      queue.push(data);
      if (!paused) {
        paused = true;
        ws.pause();
      }
      return;
    }
    start(data);
  });
  ws.on('close', () => {
    closed = true;
    queue.length = 0;
  });

  return {
    sendEvent(text) {
      if (tooFarBehind()) return;
      ws.send(text);
    },
  };
}
