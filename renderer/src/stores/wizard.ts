// Setup wizard state, mirrored to the backend (wizard/save) so every step is resumable.
import { create } from 'zustand';
import { wizardSteps, type WizardState, type WizardStep } from '../../../electron/contract';
import { api } from '../api/client';

interface WizardStore {
  state: WizardState | null;
  error: string | null;
  load(): Promise<void>;
  goTo(step: WizardStep): Promise<void>;
  complete(step: WizardStep, patch?: Partial<WizardState>): Promise<void>;
  dismiss(): Promise<void>;
  restart(): Promise<void>;
}

export const useWizard = create<WizardStore>((set, get) => ({
  state: null,
  error: null,
  async load() {
    try {
      set({ state: await api.invoke('wizard/get', {}), error: null });
    } catch (error) {
      set({ error: (error as Error).message });
    }
  },
  async goTo(step) {
    set({ state: await api.invoke('wizard/save', { step }) });
  },
  async complete(step, patch = {}) {
    const current = get().state;
    const completed = [...new Set([...(current?.completed ?? []), step])];
    const index = wizardSteps.indexOf(step);
    const next = wizardSteps[Math.min(index + 1, wizardSteps.length - 1)];
    const { updatedAt: _ignored, ...rest } = patch as WizardState;
    set({ state: await api.invoke('wizard/save', { ...rest, completed, step: next }) });
  },
  async dismiss() {
    set({ state: await api.invoke('wizard/save', { dismissed: true }) });
  },
  async restart() {
    set({ state: await api.invoke('wizard/save', { step: 'welcome', completed: [], dismissed: false }) });
  },
}));
