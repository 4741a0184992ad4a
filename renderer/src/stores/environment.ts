// Engine-environment state: the interpreters found, the selected one, and the managed install.
import { create } from 'zustand';
import type { InstallProgress, InstallResult, InterpreterCandidate } from '../../../electron/contract';
import { api } from '../api/client';

interface EnvironmentState {
  candidates: InterpreterCandidate[];
  selected: string | null;
  /** When the oldest answer shown was probed (the backend keeps answers while interpreters are unchanged). */
  checkedAt: string | null;
  loading: boolean;
  error: string | null;
  installing: boolean;
  installProgress: InstallProgress | null;
  installStartedAt: number | null;
  installResult: InstallResult | null;
  /** fresh: probe every interpreter again (Re-check) instead of the backend's kept answers. */
  list(fresh?: boolean): Promise<void>;
  select(path: string): Promise<void>;
  install(): Promise<void>;
  cancelInstall(): Promise<void>;
}

export const useEnvironment = create<EnvironmentState>((set, get) => ({
  candidates: [],
  selected: null,
  checkedAt: null,
  loading: false,
  error: null,
  installing: false,
  installProgress: null,
  installStartedAt: null,
  installResult: null,
  async list(fresh = false) {
    set({ loading: true, error: null });
    try {
      const { candidates, selected, checkedAt } = await api.invoke('environment/list', { probe: true, ...(fresh ? { fresh } : {}) });
      set({ candidates, selected, checkedAt: checkedAt ?? null, loading: false });
      // With nothing usable selected, take the first ready interpreter (the one a user would pick).
      const current = candidates.find((c) => selected !== null && (c.path === selected || c.probe?.executable === selected));
      const ready = candidates.find((c) => c.probe?.ready);
      if (ready && !current?.probe?.ready) await get().select(ready.path);
    } catch (error) {
      set({ loading: false, error: (error as Error).message });
    }
  },
  async select(path) {
    try {
      const { selected } = await api.invoke('environment/select', { path });
      set({ selected, error: null });
    } catch (error) {
      set({ error: (error as Error).message });
    }
  },
  async install() {
    set({ installing: true, installProgress: null, installResult: null, installStartedAt: Date.now(), error: null });
    try {
      const installResult = await api.invoke('environment/install', { select: true });
      set({ installing: false, installResult });
      if (installResult.ok) await get().list();
    } catch (error) {
      set({ installing: false, error: (error as Error).message });
    }
  },
  async cancelInstall() {
    await api.invoke('environment/install-cancel', {}).catch(() => undefined);
  },
}));

api.on('environment/install-progress', (installProgress) => useEnvironment.setState({ installProgress }));
