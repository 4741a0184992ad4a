// Compare domain state: which runs are compared, against which baseline, and the comparison.
// `arrivedAt` marks when the data came, so the page can time data → charts rendered.
import { create } from 'zustand';
import type { Comparison, MetricId } from '../../../electron/contract';
import { api } from '../api/client';

interface CompareState {
  ids: string[];
  baselineId: string | null;
  metric: MetricId | null; // null: the comparison's primary metric
  comparison: Comparison | null;
  loading: boolean;
  error: string | null;
  arrivedAt: number | null;
  open(ids: string[]): void;
  setBaseline(id: string | null): Promise<void>;
  setMetric(metric: MetricId): void;
  load(): Promise<void>;
}

export const useCompare = create<CompareState>((set, get) => ({
  ids: [],
  baselineId: null,
  metric: null,
  comparison: null,
  loading: false,
  error: null,
  arrivedAt: null,
  open(ids) {
    set({ ids, baselineId: null, comparison: null, error: null });
  },
  async setBaseline(id) {
    set({ baselineId: id });
    await get().load();
  },
  setMetric(metric) {
    set({ metric });
  },
  async load() {
    const { ids, baselineId } = get();
    if (ids.length === 0) return set({ comparison: null, error: null });
    set({ loading: true });
    try {
      const comparison = await api.invoke('compare/runs', { ids, baselineId: baselineId ?? undefined });
      set({ comparison, loading: false, error: null, arrivedAt: performance.now() });
    } catch (error) {
      set({ loading: false, error: (error as Error).message });
    }
  },
}));
