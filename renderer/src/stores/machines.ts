// Names of the machines runs were made on: machineId → "hostname · 8 × NVIDIA H200", from the
// snapshot of one run per machine (runs/get). Loaded once per set of ids; shared by Runs and Plan.
import { create } from 'zustand';
import type { Machine } from '../../../electron/contract';
import { api } from '../api/client';

/** A machine's two parts: its name (the hostname) and what GPUs it has ("8 × NVIDIA H200", "no GPU"). */
export function machineParts(m: Machine): { host: string; gpus: string } {
  return { host: m.hostname, gpus: m.gpus.length ? `${m.gpus.length} × ${m.gpus[0].name}` : 'no GPU' };
}

export function describeMachine(m: Machine): string {
  const { host, gpus } = machineParts(m);
  return `${host} · ${gpus}`;
}

interface MachinesState {
  names: Record<string, string>;
  machines: Record<string, Machine>;
  asked: Set<string>;
  /** Look up the machines of these runs (one runs/get per machine not yet known). */
  resolve(runs: { id: string; machineId: string | null }[]): Promise<void>;
}

export const useMachines = create<MachinesState>((set, get) => ({
  names: {},
  machines: {},
  asked: new Set(),
  async resolve(runs) {
    const todo = new Map<string, string>();
    for (const r of runs) if (r.machineId && !get().asked.has(r.machineId) && !todo.has(r.machineId)) todo.set(r.machineId, r.id);
    if (!todo.size) return;
    for (const id of todo.keys()) get().asked.add(id);
    for (const [machineId, runId] of [...todo].slice(0, 32)) {
      try {
        const detail = await api.invoke('runs/get', { id: runId, logLines: 0 });
        const m = detail.snapshot as Machine | null;
        if (m && typeof m === 'object' && Array.isArray(m.gpus) && typeof m.hostname === 'string')
          set({ names: { ...get().names, [machineId]: describeMachine(m) }, machines: { ...get().machines, [machineId]: m } });
      } catch {
        // no snapshot: the id is shown instead
      }
    }
  },
}));
