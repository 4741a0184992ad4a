// Hardware domain state: the detected machine, fetched through the contract client.
import { create } from 'zustand';
import type { Machine } from '../../../electron/contract';
import { api } from '../api/client';

interface HardwareState {
  machine: Machine | null;
  loading: boolean;
  error: string | null;
  detect(refresh?: boolean): Promise<void>;
}

export const useHardware = create<HardwareState>((set, get) => ({
  machine: null,
  loading: false,
  error: null,
  async detect(refresh = false) {
    if (get().loading) return;
    set({ loading: true, error: null });
    try {
      const machine = await api.invoke('hardware/detect', { refresh });
      set({ machine, loading: false });
    } catch (error) {
      set({ error: (error as Error).message, loading: false });
    }
  },
}));
