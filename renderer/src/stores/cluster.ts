// Cluster domain state: stored clusters, and per cluster the last pre-flight table and detection.
import { create } from 'zustand';
import type { Cluster, ClusterRecord, Launch, PreflightRow } from '../../../electron/contract';
import { api } from '../api/client';

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
    clusters: [],
    loaded: false,
    busy: null,
    error: null,
    preflight: {},
    launch: {},
    async load() {
      await guard('load', async () => set({ clusters: (await api.invoke('cluster/list', {})).clusters, loaded: true }));
    },
    async save(cluster) {
      let ok = false;
      await guard('save', async () => {
        await api.invoke('cluster/save', cluster);
        ok = true;
        await get().load();
      });
      return ok;
    },
    async remove(name) {
      await guard('delete', async () => {
        await api.invoke('cluster/delete', { name });
        await get().load();
      });
    },
    async runPreflight(name) {
      await guard(`preflight:${name}`, async () => {
        const result = await api.invoke('cluster/preflight', { name });
        set({ preflight: { ...get().preflight, [name]: result } });
      });
    },
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
