// Persists the setup wizard's progress in <dataDir>/wizard.json (atomic write: temp + rename).
import fs from 'node:fs';
import path from 'node:path';
import { WizardStateSchema, type WizardState } from '../../contract';
import { writeJsonAtomic } from '../../kernel';

export const initialWizardState: WizardState = {
  step: 'welcome',
  completed: [],
  dismissed: false,
  workload: null,
  updatedAt: null,
};

function file(dataDir: string): string {
  return path.join(dataDir, 'wizard.json');
}

export function loadWizardState(dataDir: string): WizardState {
  try {
    const parsed = WizardStateSchema.safeParse(JSON.parse(fs.readFileSync(file(dataDir), 'utf8')));
    // A damaged file starts the wizard over rather than failing the app.
    return parsed.success ? parsed.data : { ...initialWizardState };
  } catch {
    return { ...initialWizardState };
  }
}

export function saveWizardState(dataDir: string, patch: Partial<Omit<WizardState, 'updatedAt'>>): WizardState {
  const current = loadWizardState(dataDir);
  const next: WizardState = {
    ...current,
    ...patch,
    completed: [...new Set(patch.completed ?? current.completed)],
    updatedAt: new Date().toISOString(),
  };
  writeJsonAtomic(file(dataDir), next);
  return next;
}
