// Host-measurement state: the native CPU Adam sweep, memory bandwidth, host↔GPU copies and torch's CPU AdamW.
import { create } from 'zustand';
import type { MeasureProgress, Measurement } from '../../../electron/contract';
import { api } from '../api/client';

interface MeasureState {
  result: Measurement | null;
  running: boolean;
  progress: MeasureProgress | null;
  startedAt: number | null;
  error: string | null;
  /** The stored measurement of the machine shown (a measurement made before this window, or by `measure`); null: none. */
  stored: Measurement | null;
  storedLoaded: boolean;
  loadStored(): Promise<void>;
  measure(budgetSeconds?: number): Promise<void>;
  cancel(): Promise<void>;
}

export const useMeasure = create<MeasureState>((set) => ({
  result: null,
  running: false,
  progress: null,
  startedAt: null,
  error: null,
  stored: null,
  storedLoaded: false,
  async loadStored() {
    try {
      set({ stored: await api.invoke('hardware/measurement', {}), storedLoaded: true });
    } catch {
      set({ storedLoaded: true }); // the page then offers to measure
    }
  },
  async measure(budgetSeconds = 30) {
    set({ running: true, error: null, progress: null, startedAt: Date.now() });
    try {
      const result = await api.invoke('hardware/measure', { budgetSeconds });
      set({ result, stored: result, running: false });
    } catch (error) {
      const e = error as Error & { code?: string };
      set({ running: false, error: e.code === 'cancelled' ? 'Measurement cancelled. Measure again when ready.' : e.message });
    }
  },
  async cancel() {
    await api.invoke('hardware/measure-cancel', {}).catch(() => undefined);
  },
}));

api.on('hardware/measure-progress', (progress) => useMeasure.setState({ progress }));
