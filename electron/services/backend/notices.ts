// Notices for the user, kept until a client acknowledges one. Events reach only the clients
// connected when they are emitted; the recovery notice is raised at start-up, before any window
// or browser is there, so every notice also waits here until app/notice-ack (any client) removes
// it. Bounded: a backend that raises notices nobody reads keeps the latest MAX_PENDING.
import crypto from 'node:crypto';
import type { EventName, EventOf } from '../../contract';

export type Notice = EventOf<'app/notice'>;

const MAX_PENDING = 50;

export interface NoticeStore {
  notify(level: Notice['level'], message: string): void;
  pending(): Notice[];
  acknowledge(id: string): boolean;
}

export function createNotices(emit: <E extends EventName>(event: E, payload: EventOf<E>) => void): NoticeStore {
  const pending = new Map<string, Notice>();
  return {
    notify(level, message) {
      const notice: Notice = { id: crypto.randomUUID(), level, message };
      pending.set(notice.id, notice);
      while (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value!);
      emit('app/notice', notice);
    },
    pending: () => [...pending.values()],
    acknowledge: (id) => pending.delete(id),
  };
}
