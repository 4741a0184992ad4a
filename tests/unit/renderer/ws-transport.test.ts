// The browser transport reconnects with backoff while events are listened for, and the same
// listeners receive the events of the new socket.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWebSocketClient, type SocketLike } from '../../../renderer/src/api/ws-transport';

class FakeSocket implements SocketLike {
  static all: FakeSocket[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  sent: string[] = [];
  constructor(public url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  open() {
    this.onopen?.({});
  }
  fail() {
    this.onerror?.({});
    this.onclose?.({});
  }
  event(event: string, payload: unknown) {
    this.onmessage?.({ data: JSON.stringify({ event, payload }) });
  }
}

beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe('WebSocket transport', () => {
  it('reconnects with doubling backoff and keeps delivering events to the same listeners', async () => {
    const client = createWebSocketClient('ws://x/ws', { WebSocket: FakeSocket, initialDelayMs: 100, maxDelayMs: 400 });
    const seen: unknown[] = [];
    client.on('runs/progress' as never, (p: never) => seen.push(p));
    expect(FakeSocket.all).toHaveLength(1);
    FakeSocket.all[0].open();
    FakeSocket.all[0].event('runs/progress', { n: 1 });

    FakeSocket.all[0].fail(); // the server went away
    await vi.advanceTimersByTimeAsync(99);
    expect(FakeSocket.all).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(2); // after 100 ms
    FakeSocket.all[1].fail();
    await vi.advanceTimersByTimeAsync(199);
    expect(FakeSocket.all).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(FakeSocket.all).toHaveLength(3); // after 200 ms
    FakeSocket.all[2].fail();
    await vi.advanceTimersByTimeAsync(400);
    expect(FakeSocket.all).toHaveLength(4); // after 400 ms
    FakeSocket.all[3].fail();
    await vi.advanceTimersByTimeAsync(400);
    expect(FakeSocket.all).toHaveLength(5); // capped at 400 ms

    FakeSocket.all[4].open();
    FakeSocket.all[4].event('runs/progress', { n: 2 });
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);

    // Once open, the backoff starts over.
    FakeSocket.all[4].fail();
    await vi.advanceTimersByTimeAsync(100);
    expect(FakeSocket.all).toHaveLength(6);
  });

  it('rejects requests in flight when the socket closes, and does not reconnect with no listeners', async () => {
    const client = createWebSocketClient('ws://x/ws', { WebSocket: FakeSocket, initialDelayMs: 100 });
    const answer = client.invoke('settings/get' as never, {} as never);
    FakeSocket.all[0].open();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.all[0].sent).toHaveLength(1);
    FakeSocket.all[0].fail();
    await expect(answer).rejects.toMatchObject({ code: 'disconnected' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('stops reconnecting once the last listener is removed', async () => {
    const client = createWebSocketClient('ws://x/ws', { WebSocket: FakeSocket, initialDelayMs: 100 });
    const off = client.on('runs/progress' as never, () => undefined);
    FakeSocket.all[0].open();
    off();
    FakeSocket.all[0].fail();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(FakeSocket.all).toHaveLength(1);
  });
});
