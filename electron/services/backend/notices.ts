// Notices for the user, kept until a client acknowledges one. Events reach only the clients
// connected when they are emitted; the recovery notice is raised at start-up, before any window
// or browser is there, so every notice also waits here until app/notice-ack (any client) removes
// it. The pending ones are also kept in `<dataDir>/notices.json` (atomic write; removed when none
// is left), so a restart — or several — before any client connected does not lose them; a
// malformed file or entry is ignored (each entry checked against the contract's NoticeSchema). A
// write that fails (read-only folder, full disk) keeps them in memory only. Bounded: a backend
// that raises notices nobody reads keeps the latest MAX_PENDING.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NoticeSchema, type EventName, type EventOf } from '../../contract';
import { writeJsonAtomic } from '../../kernel';

export type Notice = EventOf<'app/notice'>;

const MAX_PENDING = 50;
export const NOTICES_FILE = 'notices.json';

export interface NoticeStore {
  notify(level: Notice['level'], message: string): void;
  pending(): Notice[];
  acknowledge(id: string): boolean;
}

/** The notices kept in `file` by an earlier process (none when missing or malformed). */
function loadNotices(file: string): Notice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const list = (parsed as { notices?: unknown } | null)?.notices;
  if (!Array.isArray(list)) return [];
  return list.flatMap((n) => {
    const ok = NoticeSchema.safeParse(n);
    return ok.success ? [ok.data] : [];
  });
}

/** `dataDir`: where the pending notices are kept across restarts (none: memory only). */
export function createNotices(emit: <E extends EventName>(event: E, payload: EventOf<E>) => void, dataDir?: string): NoticeStore {
  const file = dataDir ? path.join(dataDir, NOTICES_FILE) : null;
  const pending = new Map<string, Notice>();
  if (file) for (const n of loadNotices(file).slice(-MAX_PENDING)) pending.set(n.id, n);
  const save = () => {
    if (!file) return;
    try {
      if (pending.size) writeJsonAtomic(file, { notices: [...pending.values()] }, { mode: 0o600 });
      else fs.rmSync(file, { force: true });
    } catch {
      // Kept in memory; the next change tries again.
    }
  };
  return {
    notify(level, message) {
      const notice: Notice = { id: crypto.randomUUID(), level, message };
      pending.set(notice.id, notice);
      while (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value!);
      save();
      emit('app/notice', notice);
    },
    pending: () => [...pending.values()],
    acknowledge: (id) => {
      const had = pending.delete(id);
      if (had) save();
      return had;
    },
  };
}
