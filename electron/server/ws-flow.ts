// Flow control for one WebSocket of the contract: a client cannot make serve hold more than a
// bounded amount for it. Requests in flight (received, answer not yet flushed to the socket) are
// capped per socket: past the cap the socket is paused (TCP pushes back on the client) and frames
// already read wait in a queue. A socket whose unsent output (`bufferedAmount`: answers and events
// the client is not reading) passes a cap is closed: one stalled client must not grow serve to
// an out-of-memory crash (1 MB runs/list answers to a client that stopped reading did, in ~6 s).
//
// Events: one socket write per event per client was most of serve's time under a fast sweep with
// 200 clients (a `writev` each). The server encodes an event once (a Buffer shared by every
// client) and each flow corks its TCP socket until the end of the event-loop turn, so the events
// of one turn (and answers ready in it) leave in one write.
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';

export const MAX_IN_FLIGHT_PER_SOCKET = 16;
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

export interface FlowOptions {
  maxInFlight?: number;
  maxBufferedBytes?: number;
  /** Handles one request frame; resolves with the answer: its text, or its UTF-8 bytes in parts (sent as fragments of one message). */
  handle(data: RawData): Promise<string | Buffer[]>;
  /** The socket under `ws` (from the upgrade): corked per event-loop turn while events go out. */
  socket?: Duplex;
}

export interface Flow {
  /** Sends an event, text or its UTF-8 bytes (dropped, and the socket closed, when the client is too far behind). */
  sendEvent(message: string | Buffer): void;
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
        if (typeof answer === 'string') return ws.send(answer, () => settle());
        // Fragments of one text message, queued back to back (nothing can come between them).
        answer.forEach((part, i) => ws.send(part, { binary: false, fin: i === answer.length - 1 }, i === answer.length - 1 ? () => settle() : undefined));
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

  let corked = false;
  const uncork = () => {
    corked = false;
    options.socket?.uncork();
  };
  return {
    sendEvent(message) {
      if (tooFarBehind()) return;
      if (options.socket && !corked) {
        corked = true;
        options.socket.cork();
        setImmediate(uncork);
      }
      ws.send(message, { binary: false });
    },
  };
}
