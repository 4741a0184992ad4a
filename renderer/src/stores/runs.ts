// History domain state: the stored runs.
import { create } from 'zustand';
import type { RunSummary } from '../../../electron/contract';
import { api } from '../api/client';

interface RunsState {
  runs: RunSummary[];
  total: number;
  loaded: boolean;
  error: string | null;
  load(): Promise<void>;
}

export const useRuns = create<RunsState>((set) => ({
  runs: [],
  total: 0,
  loaded: false,
  error: null,
  async load() {
    try {
      const { runs, total } = await api.invoke('runs/list', { limit: 1000 });
      set({ runs, total, loaded: true, error: null });
    } catch (error) {
      set({ error: (error as Error).message, loaded: true });
    }
  },
}));
