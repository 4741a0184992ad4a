// Slurm targets: the saved ones, and per target the last pre-flight and detected node shape.
import { create } from 'zustand';
import type { SlurmNodeShape, SlurmPreflightRow, SlurmTargetInput, SlurmTargetRecord } from '../../../electron/contract';
import { api } from '../api/client';
import { busyGuard, savedTargetActions } from './saved-targets';

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
  const guard = busyGuard(set);
  return {
    targets: [],
    loaded: false,
    busy: null,
    error: null,
    preflight: {},
    async load() {
      await guard('load', async () => set({ targets: (await api.invoke('slurm/list', {})).targets, loaded: true }));
    },
    ...savedTargetActions(guard, {
      save: (target: SlurmTargetInput) => api.invoke('slurm/save', target),
      remove: (name) => api.invoke('slurm/delete', { name }),
      preflight: (name) => api.invoke('slurm/preflight', { name }),
      keepPreflight: (name, result) => set({ preflight: { ...get().preflight, [name]: result } }),
      reload: () => get().load(),
    }),
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
