// Flow control for one WebSocket of the contract: a client cannot make serve hold more than a
// bounded amount for it. Requests in flight (received, answer not yet flushed to the socket) are
// capped per socket: past the cap the socket is paused (TCP pushes back on the client) and frames
// already read wait in a queue. A socket whose unsent output (`bufferedAmount`: answers and events
// the client is not reading) passes a cap is closed: one stalled client must not grow serve to
// an out-of-memory crash (1 MB runs/list answers to a client that stopped reading did, in ~6 s).
//
// Events: one socket write per event per client was most of serve's time under a fast sweep with
// 200 clients (a `writev` each, 20,000 a second at 100 steps/s). The server encodes an event once
// (a Buffer shared by every client) and queues it at every flow; the queue leaves in one write
// (the TCP socket corked around it) every EVENT_BATCH_MS, or at once before an answer, so a
// client still sees events and answers in the order serve produced them.
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';

export const MAX_IN_FLIGHT_PER_SOCKET = 16;
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** Longest an event waits in a flow's queue (the server flushes every queue on this timer). */
export const EVENT_BATCH_MS = 20;

export interface FlowOptions {
  maxInFlight?: number;
  maxBufferedBytes?: number;
  /** Handles one request frame; resolves with the answer: its text, or its UTF-8 bytes in parts (sent as fragments of one message). */
  handle(data: RawData): Promise<string | Buffer[]>;
  /** The socket under `ws` (from the upgrade): corked while a batch of events goes out. */
  socket?: Duplex;
}

export interface Flow {
  /** Queues an event, text or its UTF-8 bytes, for the next batch (dropped, and the socket closed, when the client is too far behind). */
  queueEvent(message: string | Buffer): void;
  /** Sends the queued events in one write. */
  flushEvents(): void;
}

export function attachFlow(ws: WebSocket, options: FlowOptions): Flow {
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT_PER_SOCKET;
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const queue: RawData[] = [];
  let pending: (string | Buffer)[] = []; // events waiting for the next batch
  let pendingBytes = 0;
  let inFlight = 0;
  let paused = false;
  let closed = false;

  const tooFarBehind = (): boolean => {
    if (closed || ws.readyState !== ws.OPEN) return true;
    if (ws.bufferedAmount + pendingBytes <= maxBuffered) return false;
    // 1008 policy violation; terminate: a close frame would queue behind what it does not read.
    closed = true;
    queue.length = 0;
    pending = [];
    pendingBytes = 0;
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
        // The events queued before it go first; in flight until the answer is handed to the
        // socket: bounded memory per client.
        writeOut(() => {
          if (typeof answer === 'string') return ws.send(answer, () => settle());
          // Fragments of one text message, queued back to back (nothing can come between them).
          answer.forEach((part, i) =>
            ws.send(part, { binary: false, fin: i === answer.length - 1 }, i === answer.length - 1 ? () => settle() : undefined),
          );
        });
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
    pending = [];
    pendingBytes = 0;
  });

  /** The queued events, then `then` (an answer), in one write. */
  function writeOut(then?: () => void): void {
    const events = pending;
    pending = [];
    pendingBytes = 0;
    if (events.length === 0 && !then) return;
    options.socket?.cork();
    try {
      for (const message of events) ws.send(message, { binary: false });
      then?.();
    } finally {
      options.socket?.uncork();
    }
  }

  return {
    queueEvent(message) {
      if (tooFarBehind()) return;
      pending.push(message);
      pendingBytes += message.length;
    },
    flushEvents() {
      if (closed || ws.readyState !== ws.OPEN) {
        pending = [];
        pendingBytes = 0;
        return;
      }
      writeOut();
    },
  };
}
