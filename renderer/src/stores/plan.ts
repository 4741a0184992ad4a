// Plan domain state: presets, the workload being planned, and the tuner's answer.
import { create } from 'zustand';
import type { ModelArch, PlanResult, ResponseOf, WorkloadOverrides } from '../../../electron/contract';
import { api } from '../api/client';

export type Presets = ResponseOf<'plan/presets'>;

export interface WorkloadForm {
  model: string; // preset id, or the id of an imported architecture
  seqLen: number;
  microBatch: number;
  gradAccum: number;
  gpus: number;
  nodes: number;
  precision: 'bf16' | 'fp16';
  activationCheckpointing: boolean;
}

export const defaultWorkload: WorkloadForm = {
  model: 'llama-3.2-3b',
  seqLen: 2048,
  microBatch: 1,
  gradAccum: 1,
  gpus: 1,
  nodes: 1,
  precision: 'bf16',
  activationCheckpointing: true,
};

interface PlanState {
  presets: Presets | null;
  presetsError: string | null;
  workload: WorkloadForm;
  imported: ModelArch[];
  scenario: string | null;
  plan: PlanResult | null;
  computing: boolean;
  error: string | null;
  selected: string[]; // strategies chosen to run
  loadPresets(): Promise<void>;
  setWorkload(patch: Partial<WorkloadForm>): void;
  importConfig(text: string, name: string): Promise<void>;
  compute(): Promise<void>;
  computeScenario(id: string): Promise<void>;
  toggle(strategyId: string): void;
}

function overrides(state: PlanState): WorkloadOverrides {
  const w = state.workload;
  const imported = state.imported.find((m) => m.id === w.model);
  return {
    model: imported ?? w.model,
    seqLen: w.seqLen,
    microBatch: w.microBatch,
    gradAccum: w.gradAccum,
    gpus: w.gpus,
    nodes: w.nodes,
    precision: w.precision,
    activationCheckpointing: w.activationCheckpointing,
  };
}

/** Sensible preselection: the recommendation, its runner-up and every other strategy that fits, at most four. */
export function preselect(plan: PlanResult): string[] {
  const picks = new Set<string>();
  if (plan.recommended) picks.add(plan.recommended.strategyId);
  if (plan.recommended?.runnerUp) picks.add(plan.recommended.runnerUp.strategyId);
  for (const s of plan.strategies) if (s.fits && picks.size < 4) picks.add(s.id);
  return [...picks];
}

export const usePlan = create<PlanState>((set, get) => ({
  presets: null,
  presetsError: null,
  workload: defaultWorkload,
  imported: [],
  scenario: null,
  plan: null,
  computing: false,
  error: null,
  selected: [],
  async loadPresets() {
    if (get().presets) return;
    try {
      set({ presets: await api.invoke('plan/presets', {}), presetsError: null });
    } catch (error) {
      set({ presetsError: (error as Error).message });
    }
  },
  setWorkload(patch) {
    set({ workload: { ...get().workload, ...patch }, scenario: null });
  },
  async importConfig(text, name) {
    try {
      const id = `imported-${name.replace(/\.json$/i, '').replace(/[^a-z0-9-]+/gi, '-').toLowerCase()}`;
      const arch = await api.invoke('plan/import-hf-config', { text, id });
      set({ imported: [...get().imported.filter((m) => m.id !== arch.id), arch], workload: { ...get().workload, model: arch.id }, error: null });
    } catch (error) {
      set({ error: `Could not import ${name}: ${(error as Error).message}` });
    }
  },
  async compute() {
    set({ computing: true, error: null });
    try {
      const plan = await api.invoke('plan/compute', { workload: overrides(get()) });
      set({ plan, computing: false, selected: preselect(plan) });
    } catch (error) {
      set({ computing: false, error: (error as Error).message });
    }
  },
  async computeScenario(id) {
    set({ computing: true, error: null });
    try {
      const plan = await api.invoke('plan/compute', { scenario: id });
      const scenario = get().presets?.scenarios.find((s) => s.id === id);
      const w = plan.workload;
      set({
        plan,
        computing: false,
        scenario: id,
        selected: scenario?.compare ?? preselect(plan),
        workload: {
          model: typeof w.model === 'string' ? w.model : w.model.id,
          seqLen: w.seqLen,
          microBatch: w.microBatch,
          gradAccum: w.gradAccum,
          gpus: w.gpus,
          nodes: w.nodes,
          precision: w.precision,
          activationCheckpointing: w.activationCheckpointing,
        },
      });
    } catch (error) {
      set({ computing: false, error: (error as Error).message });
    }
  },
  toggle(strategyId) {
    const selected = get().selected;
    set({ selected: selected.includes(strategyId) ? selected.filter((s) => s !== strategyId) : [...selected, strategyId] });
  },
}));
