// Settings domain state. The theme is applied to <html data-theme> as soon as settings load (this
// module loads with the app shell), so the chosen theme holds on every page, not only this one.
import { create } from 'zustand';
import type { SettingsUpdate, SettingsView, Theme } from '../../../electron/contract';
import { api } from '../api/client';

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}

interface SettingsState {
  view: SettingsView | null;
  loading: boolean;
  saving: boolean;
  error: string | null;
  savedAt: number | null;
  load(): Promise<void>;
  update(patch: SettingsUpdate): Promise<boolean>;
}

// One settings/get at a time: the shell's load at start-up and a page's own load would otherwise both land,
// and the later one replaced the view a page had already begun editing from.
let inFlight: Promise<void> | null = null;

export const useSettings = create<SettingsState>((set) => ({
  view: null,
  loading: false,
  saving: false,
  error: null,
  savedAt: null,
  load() {
    if (inFlight) return inFlight;
    const request = (async () => {
      set({ loading: true, error: null });
      try {
        const view = await api.invoke('settings/get', {});
        applyTheme(view.settings.theme);
        set({ view, loading: false });
      } catch (error) {
        set({ error: (error as Error).message, loading: false });
      }
    })();
    inFlight = request;
    void request.finally(() => {
      if (inFlight === request) inFlight = null;
    });
    return request;
  },
  async update(patch) {
    set({ saving: true, error: null });
    try {
      const view = await api.invoke('settings/update', patch);
      applyTheme(view.settings.theme);
      set({ view, saving: false, savedAt: Date.now() });
      return true;
    } catch (error) {
      set({ error: (error as Error).message, saving: false });
      return false;
    }
  },
}));

void useSettings.getState().load();
