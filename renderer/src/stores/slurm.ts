// Slurm targets: the saved ones, and per target the last pre-flight and detected node shape.
import { create } from 'zustand';
import type { SlurmNodeShape, SlurmPreflightRow, SlurmTargetInput, SlurmTargetRecord } from '../../../electron/contract';
import { api } from '../api/client';

interface SlurmState {
  targets: SlurmTargetRecord[];
  loaded: boolean;
  busy: string | null;
  error: string | null;
  preflight: Record<string, { ok: boolean; rows: SlurmPreflightRow[] }>;
  load(): Promise<void>;
  save(target: SlurmTargetInput): Promise<boolean>;
  remove(name: string): Promise<void>;
  runPreflight(name: string): Promise<void>;
  detect(name: string): Promise<SlurmNodeShape | null>;
}

export const useSlurm = create<SlurmState>((set, get) => {
  const guard = async (what: string, fn: () => Promise<void>) => {
    set({ busy: what, error: null });
    try {
      await fn();
    } catch (error) {
      set({ error: (error as Error).message });
    } finally {
      set({ busy: null });
    }
  };
  return {
    targets: [],
    loaded: false,
    busy: null,
    error: null,
    preflight: {},
    async load() {
      await guard('load', async () => set({ targets: (await api.invoke('slurm/list', {})).targets, loaded: true }));
    },
    async save(target) {
      let ok = false;
      await guard('save', async () => {
        await api.invoke('slurm/save', target);
        ok = true;
        await get().load();
      });
      return ok;
    },
    async remove(name) {
      await guard('delete', async () => {
        await api.invoke('slurm/delete', { name });
        await get().load();
      });
    },
    async runPreflight(name) {
      await guard(`preflight:${name}`, async () => {
        const result = await api.invoke('slurm/preflight', { name });
        set({ preflight: { ...get().preflight, [name]: result } });
      });
    },
    async detect(name) {
      let shape: SlurmNodeShape | null = null;
      await guard(`detect:${name}`, async () => {
        shape = await api.invoke('slurm/detect', { name });
        await get().load();
      });
      return shape;
    },
  };
});
