// Notices from the backend (e.g. runs a crash left running were marked interrupted). The backend
// keeps each until a client acknowledges it, so one raised before this page connected is read with
// app/notices at start; a new one arrives as the 'app/notice' event. NoticeBar acks each once it is
// on screen; it then stays here until the user dismisses it.
import { create } from 'zustand';
import type { EventOf } from '../../../electron/contract';
import { api } from '../api/client';

export type Notice = EventOf<'app/notice'>;

interface NoticesState {
  notices: Notice[];
  /** Ids already acknowledged to the backend by this page. */
  acked: string[];
  load(): Promise<void>;
  add(notice: Notice): void;
  /** Called once a notice is on screen: the backend forgets it. */
  ack(id: string): void;
  dismiss(id: string): void;
}

export const useNotices = create<NoticesState>((set, get) => ({
  notices: [],
  acked: [],
  async load() {
    try {
      const { notices } = await api.invoke('app/notices', {});
      for (const n of notices) get().add(n);
    } catch {
      // An older backend without app/notices: only live events then.
    }
  },
  add(notice) {
    if (get().notices.some((n) => n.id === notice.id)) return;
    set({ notices: [...get().notices, notice] });
  },
  ack(id) {
    if (get().acked.includes(id)) return;
    set({ acked: [...get().acked, id] });
    api.invoke('app/notice-ack', { id }).catch(() => set({ acked: get().acked.filter((a) => a !== id) }));
  },
  dismiss(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) });
  },
}));

api.on('app/notice', (notice) => useNotices.getState().add(notice));
