// App-wide state: which page is open (kept in the URL hash so reloads and links keep it) and app info.
import { create } from 'zustand';
import type { ResponseOf } from '../../../electron/contract';
import { api } from '../api/client';

export const pages = ['setup', 'hardware', 'plan', 'run', 'runs', 'compare', 'reports', 'settings'] as const;
export type PageId = (typeof pages)[number];

function pageFromHash(): PageId {
  const id = window.location.hash.replace(/^#\/?/, '') as PageId;
  return pages.includes(id) ? id : 'hardware';
}

interface AppState {
  page: PageId;
  info: ResponseOf<'app/info'> | null;
  infoError: string | null;
  go(page: PageId): void;
  loadInfo(): Promise<void>;
}

export const useApp = create<AppState>((set) => ({
  page: pageFromHash(),
  info: null,
  infoError: null,
  go(page) {
    if (window.location.hash !== `#/${page}`) window.location.hash = `#/${page}`;
    set({ page });
  },
  async loadInfo() {
    try {
      set({ info: await api.invoke('app/info', {}) });
    } catch (error) {
      set({ infoError: (error as Error).message });
    }
  },
}));

window.addEventListener('hashchange', () => useApp.setState({ page: pageFromHash() }));
