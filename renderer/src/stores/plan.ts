// Plan domain state: presets, the workload being planned, and the tuner's answer.
import { create } from 'zustand';
import {
  CPU_DEFAULT_MAX_SEQ,
  FORM_OPTION_KEYS,
  PlanResultSchema,
  WORKLOAD_DEFAULTS,
  workloadDefaultsFor,
  type FormOptionKey,
  type Machine,
  type ModelArch,
  type PlanResult,
  type ResponseOf,
  type WorkloadFormValues,
  type WorkloadOverrides,
} from '../../../electron/contract';
import { api } from '../api/client';

export type Presets = ResponseOf<'plan/presets'>;

/** The form's workload: the model, and every option the contract declares a form field for
 *  (contract workload-options.ts: one entry there adds a field here, its default and its check). */
export type WorkloadForm = { model: string /* preset id, or the id of an imported architecture */ } & WorkloadFormValues;

export const defaultWorkload: WorkloadForm = {
  model: 'llama-3.2-3b',
  ...WORKLOAD_DEFAULTS,
};

/** The machine a plan is for: this one (detected), a saved `detect --json`, one seen in history, or a catalogued one. */
export type MachineChoice = { kind: 'this' } | { kind: 'file' | 'history' | 'catalogue'; key: string; label: string; machine: Machine };

/** "h200-sxm-x86 · 8 × NVIDIA H200" */
export function machineLabel(m: Machine): string {
  const gpus = m.gpus.length ? `${m.gpus.length} × ${m.gpus[0].name}` : 'no GPU';
  return `${m.hostname} · ${gpus}`;
}

/** A `detect --json` file's content as a Machine (the file itself, or an object holding it under `machine`). */
export function machineFromText(text: string): Machine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(
      'This file is not JSON: save what `npm run -s cli -- detect --json > machine.json` writes (on the machine to plan for) and load that.',
    );
  }
  const candidate = (
    value && typeof value === 'object' && 'machine' in value ? (value as { machine: unknown }).machine : value
  ) as Partial<Machine> | null;
  if (
    !candidate ||
    typeof candidate !== 'object' ||
    typeof candidate.hostname !== 'string' ||
    !Array.isArray(candidate.gpus) ||
    !candidate.memory
  )
    throw new Error('This JSON is not a machine description: load the output of `detect --json` (it has hostname, cpu, memory and gpus).');
  return candidate as Machine;
}

const WORKLOAD_KEY = 'offload-studio.plan.workload';
function savedWorkload(): WorkloadForm | null {
  try {
    const text = globalThis.localStorage?.getItem(WORKLOAD_KEY);
    return text ? { ...defaultWorkload, ...(JSON.parse(text) as Partial<WorkloadForm>) } : null;
  } catch {
    return null;
  }
}

/** Defaults that fit the machine: its GPU count, and with no GPU the tiny preset (nothing else would run). */
export function workloadForMachine(m: Machine | null, base: WorkloadForm = defaultWorkload): WorkloadForm {
  if (!m) return base;
  // the contract's workloadDefaultsFor says the same for `plan` (its GPU count; no GPU: seq ≤ 512)
  return m.gpus.length
    ? { ...base, gpus: workloadDefaultsFor(m).gpus }
    : { ...base, model: 'tiny-llama', gpus: 1, seqLen: Math.min(base.seqLen, CPU_DEFAULT_MAX_SEQ) };
}

/** Form fields a backend error can name (its `field`), shown next to that field rather than above the results. */
export type FormField = 'model' | FormOptionKey;
export const FORM_FIELDS: readonly FormField[] = ['model', ...FORM_OPTION_KEYS];

/** "plan/compute: field 'seqLen' must be 1 or more" → "must be 1 or more" (the field is where it is shown). */
export function fieldMessage(message: string): string {
  const m = /^(?:[\w/-]+: )?field '[^']*' (.*)$/s.exec(message);
  const text = m ? m[1] : message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const PLAN_KEY = 'offload-studio.plan.result';
interface SavedPlan {
  plan: PlanResult;
  selected: string[];
  scenario: string | null;
  imported: ModelArch[];
  machine: MachineChoice;
  plannedFor: string;
}
function savedPlan(): SavedPlan | null {
  try {
    const text = globalThis.localStorage?.getItem(PLAN_KEY);
    const saved = text ? (JSON.parse(text) as SavedPlan) : null;
    // A plan saved by another version of the app is dropped, not drawn half-understood.
    const plan = saved ? PlanResultSchema.safeParse(saved.plan) : null;
    return saved && plan?.success && Array.isArray(saved.selected)
      ? {
          ...saved,
          plan: plan.data,
          imported: Array.isArray(saved.imported) ? saved.imported : [],
          machine: saved.machine?.kind ? saved.machine : { kind: 'this' },
        }
      : null;
  } catch {
    return null;
  }
}
function savePlan(state: Pick<PlanState, 'plan' | 'selected' | 'scenario' | 'imported' | 'machine' | 'plannedFor'>): void {
  try {
    if (!state.plan) globalThis.localStorage?.removeItem(PLAN_KEY);
    else
      globalThis.localStorage?.setItem(
        PLAN_KEY,
        JSON.stringify({
          plan: state.plan,
          selected: state.selected,
          scenario: state.scenario,
          imported: state.imported,
          machine: state.machine,
          plannedFor: state.plannedFor ?? '',
        } satisfies SavedPlan),
      );
  } catch {
    // storage full or private mode: the plan just does not survive a reload
  }
}

/** The workload as planned (what `plannedFor` holds): a different one marks the shown plan as out of date. */
export const workloadKey = (w: WorkloadForm) => JSON.stringify([w.model, ...FORM_OPTION_KEYS.map((k) => w[k])]);

interface PlanState {
  presets: Presets | null;
  presetsError: string | null;
  workload: WorkloadForm;
  imported: ModelArch[];
  scenario: string | null;
  plan: PlanResult | null;
  /** workloadKey of the workload the shown plan is for. */
  plannedFor: string | null;
  computing: boolean;
  error: string | null;
  /** Problems next to form fields: the form's own checks (NumberField; planning waits for them)… */
  fieldProblems: Partial<Record<FormField, string>>;
  /** …and the backend's errors naming a field (cleared by the next change). */
  serverProblems: Partial<Record<FormField, string>>;
  /** Why the last config.json import failed, shown next to the import field. */
  importError: string | null;
  setFieldProblem(field: FormField, problem: string | null): void;
  selected: string[]; // strategies chosen to run
  machine: MachineChoice;
  /** True once the user changed the workload (or it came back from a reload): machine defaults stop applying. */
  workloadTouched: boolean;
  setMachine(choice: MachineChoice): void;
  /** Apply defaults fitting this machine unless the user already chose a workload. */
  fitToMachine(m: Machine | null): void;
  loadPresets(): Promise<void>;
  setWorkload(patch: Partial<WorkloadForm>): void;
  importConfig(text: string, name: string): Promise<void>;
  compute(): Promise<void>;
  /** Plan the form's workload for this machine (after a plan for a loaded or catalogued one). */
  planForThisMachine(): Promise<void>;
  computeScenario(id: string): Promise<void>;
  toggle(strategyId: string): void;
}

/** The form's workload as plan/compute takes it (an imported architecture inline). */
export function overrides(state: Pick<PlanState, 'workload' | 'imported'>): WorkloadOverrides {
  const w = state.workload;
  const imported = state.imported.find((m) => m.id === w.model);
  return { model: imported ?? w.model, ...Object.fromEntries(FORM_OPTION_KEYS.map((k) => [k, w[k]])) };
}

/** Sensible preselection: the recommendation, its runner-up and every other strategy that fits, at most four. */
export function preselect(plan: PlanResult): string[] {
  const picks = new Set<string>();
  if (plan.recommended) picks.add(plan.recommended.strategyId);
  if (plan.recommended?.runnerUp) picks.add(plan.recommended.runnerUp.strategyId);
  for (const s of plan.strategies) if (s.fits && picks.size < 4) picks.add(s.id);
  return [...picks];
}

const restored = savedWorkload();
const restoredPlan = savedPlan();

export const usePlan = create<PlanState>((set, get) => ({
  presets: null,
  presetsError: null,
  workload: restored ?? defaultWorkload,
  machine: restoredPlan?.machine ?? { kind: 'this' },
  workloadTouched: restored !== null,
  setMachine(choice) {
    set({ machine: choice });
    const m = choice.kind === 'this' ? null : choice.machine;
    // A machine chosen for planning brings its defaults (a plan for 8 H200s asks for 8 GPUs).
    if (m && !get().workloadTouched) set({ workload: workloadForMachine(m, defaultWorkload) });
    else if (m && m.gpus.length) set({ workload: { ...get().workload, gpus: m.gpus.length } });
  },
  fitToMachine(m) {
    if (get().workloadTouched || !m) return;
    set({ workload: workloadForMachine(m, get().workload) });
  },
  // The last plan (and its selection, imports and machine) comes back after a reload.
  imported: restoredPlan?.imported ?? [],
  scenario: restoredPlan?.scenario ?? null,
  plan: restoredPlan?.plan ?? null,
  plannedFor: restoredPlan?.plannedFor ?? null,
  computing: false,
  error: null,
  fieldProblems: {},
  serverProblems: {},
  importError: null,
  selected: restoredPlan?.selected ?? [],
  setFieldProblem(field, problem) {
    const current = get().fieldProblems;
    if ((current[field] ?? null) === problem) return;
    const next = { ...current };
    if (problem) next[field] = problem;
    else delete next[field];
    set({ fieldProblems: next });
  },
  async loadPresets() {
    if (get().presets) return;
    try {
      set({ presets: await api.invoke('plan/presets', {}), presetsError: null });
    } catch (error) {
      set({ presetsError: (error as Error).message });
    }
  },
  setWorkload(patch) {
    const workload = { ...get().workload, ...patch };
    // A backend complaint is about the values it was sent: a new value clears it.
    set({ workload, scenario: null, workloadTouched: true, serverProblems: {} });
    try {
      globalThis.localStorage?.setItem(
        WORKLOAD_KEY,
        JSON.stringify({
          ...workload,
          model: get().imported.some((m) => m.id === workload.model) ? defaultWorkload.model : workload.model,
        }),
      );
    } catch {
      // private mode: the workload just does not survive a reload
    }
  },
  async importConfig(text, name) {
    try {
      const id = `imported-${name
        .replace(/\.json$/i, '')
        .replace(/[^a-z0-9-]+/gi, '-')
        .toLowerCase()}`;
      const arch = await api.invoke('plan/import-hf-config', { text, id });
      set({ imported: [...get().imported.filter((m) => m.id !== arch.id), arch], importError: null });
      get().setWorkload({ model: arch.id });
    } catch (error) {
      // Next to the import field, naming the config's field (not '(root)', not above old results).
      set({ importError: `Could not import ${name}: ${(error as Error).message}` });
    }
  },
  async compute() {
    // The form's own checks first: nothing invalid is sent, and the marked field says why.
    if (Object.keys(get().fieldProblems).length) return;
    set({ computing: true, error: null, serverProblems: {} });
    try {
      const choice = get().machine;
      const plan = await api.invoke('plan/compute', {
        workload: overrides(get()),
        ...(choice.kind === 'this' ? {} : { machine: choice.machine }),
      });
      set({ plan, computing: false, selected: preselect(plan), plannedFor: workloadKey(get().workload) });
      savePlan(get());
    } catch (error) {
      const field = (error as { field?: string }).field;
      const message = (error as Error).message;
      // An error about a form field goes next to it; either way no old results stay under it.
      if (field && (FORM_FIELDS as readonly string[]).includes(field))
        set({ computing: false, plan: null, serverProblems: { [field]: fieldMessage(message) } });
      else set({ computing: false, plan: null, error: message });
      savePlan(get());
    }
  },
  async planForThisMachine() {
    set({ machine: { kind: 'this' }, scenario: null });
    await get().compute();
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
        serverProblems: {},
        scenario: id,
        selected: scenario?.compare ?? preselect(plan),
        // the scenario's workload in the form (a form option the scenario leaves out: its default)
        workload: {
          ...WORKLOAD_DEFAULTS,
          ...Object.fromEntries(FORM_OPTION_KEYS.filter((k) => w[k] !== undefined).map((k) => [k, w[k]])),
          model: typeof w.model === 'string' ? w.model : w.model.id,
        },
      });
      set({ plannedFor: workloadKey(get().workload) });
      savePlan(get());
    } catch (error) {
      set({ computing: false, plan: null, error: (error as Error).message });
      savePlan(get());
    }
  },
  toggle(strategyId) {
    const selected = get().selected;
    set({ selected: selected.includes(strategyId) ? selected.filter((s) => s !== strategyId) : [...selected, strategyId] });
    savePlan(get());
  },
}));
