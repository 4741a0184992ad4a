// Cluster domain state: stored clusters, and per cluster the last pre-flight table and detection.
import { create } from 'zustand';
import type { Cluster, ClusterRecord, Launch, PreflightRow } from '../../../electron/contract';
import { api } from '../api/client';
import { busyGuard, savedTargetActions } from './saved-targets';

interface ClusterState {
  clusters: ClusterRecord[];
  loaded: boolean;
  busy: string | null; // what is running now, for the button labels
  error: string | null;
  preflight: Record<string, { ok: boolean; rows: PreflightRow[] }>;
  launch: Record<string, Launch>;
  load(): Promise<void>;
  save(cluster: Cluster): Promise<boolean>;
  remove(name: string): Promise<void>;
  runPreflight(name: string): Promise<void>;
  detect(name: string): Promise<void>;
  preview(name: string): Promise<void>;
}

export const useCluster = create<ClusterState>((set, get) => {
  const guard = busyGuard(set);
  return {
    clusters: [],
    loaded: false,
    busy: null,
    error: null,
    preflight: {},
    launch: {},
    async load() {
      await guard('load', async () => set({ clusters: (await api.invoke('cluster/list', {})).clusters, loaded: true }));
    },
    ...savedTargetActions(guard, {
      save: (cluster: Cluster) => api.invoke('cluster/save', cluster),
      remove: (name) => api.invoke('cluster/delete', { name }),
      preflight: (name) => api.invoke('cluster/preflight', { name }),
      keepPreflight: (name, result) => set({ preflight: { ...get().preflight, [name]: result } }),
      reload: () => get().load(),
    }),
    async detect(name) {
      await guard(`detect:${name}`, async () => {
        await api.invoke('cluster/detect', { name });
        await get().load();
      });
    },
    async preview(name) {
      await guard(`launch:${name}`, async () => {
        const launch = await api.invoke('cluster/launch-preview', { name });
        set({ launch: { ...get().launch, [name]: launch } });
      });
    },
  };
});
