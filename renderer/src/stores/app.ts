// App-wide state: which page is open (kept in the URL hash so reloads and links keep it) and app info.
import { create } from 'zustand';
import type { ResponseOf } from '../../../electron/contract';
import { api } from '../api/client';
import { pages, type PageId } from '../page-ids';

export { pages, type PageId };

function pageFromHash(): PageId {
  const id = window.location.hash.replace(/^#\/?/, '').split('/')[0] as PageId;
  return pages.includes(id) ? id : 'hardware';
}

/** `#/runs/<id>`: the run page of one stored run (a link that can be shared or reloaded). */
export function runIdFromHash(): string | null {
  const m = window.location.hash.match(/^#\/?runs\/(.+)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

export const runHref = (id: string) => `#/runs/${encodeURIComponent(id)}`;

interface AppState {
  page: PageId;
  /** The run whose page is open (under Runs), from the URL. */
  runId: string | null;
  info: ResponseOf<'app/info'> | null;
  infoError: string | null;
  go(page: PageId): void;
  openRun(id: string | null): void;
  loadInfo(): Promise<void>;
}

export const useApp = create<AppState>((set) => ({
  page: pageFromHash(),
  runId: runIdFromHash(),
  info: null,
  infoError: null,
  go(page) {
    if (window.location.hash !== `#/${page}`) window.location.hash = `#/${page}`;
    set({ page, runId: null });
  },
  openRun(id) {
    const hash = id ? runHref(id) : '#/runs';
    if (window.location.hash !== hash) window.location.hash = hash;
    set({ page: 'runs', runId: id });
  },
  async loadInfo() {
    try {
      set({ info: await api.invoke('app/info', {}) });
    } catch (error) {
      set({ infoError: (error as Error).message });
    }
  },
}));

window.addEventListener('hashchange', () => useApp.setState({ page: pageFromHash(), runId: runIdFromHash() }));
