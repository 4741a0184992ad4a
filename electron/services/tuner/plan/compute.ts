// The shared entry of the CLI and the plan/compute channel: a workload or a scenario (its workload,
// overridden field by field, and its catalogued machine), a machine, measurements → the plan.
import {
  describeIssue,
  firstIssue,
  ApiError,
  MachineSchema,
  type KernelsInput,
  type Machine,
  type ModelArch,
  type PlanResult,
  type Workload,
  type WorkloadOverrides,
  type WorkloadInput,
} from '../../../contract';
import { resolveModel } from '../catalogue/models';
import { planWorkload } from './plan';
import { parseWorkload } from '../catalogue/workload';
import { scenarioById } from '../catalogue/presets';
import type { EfficiencyFactors } from '../model/throughput';
import type { MemoryEvidence } from '../model/memory-evidence';

export interface ComputePlanInput {
  workload?: WorkloadOverrides;
  scenario?: string;
  /** An explicit machine (a file or a request); wins over the scenario's catalogued machine. */
  machine?: unknown;
  /** Resolves the detected machine, only when neither an explicit nor a catalogued one applies. */
  detect: () => Promise<Machine>;
  measurements?: unknown;
  calibration?: Record<string, EfficiencyFactors>;
  memory?: MemoryEvidence;
  /**
   * The workload's own kernels for the machine planned for (the backend runs the kernel probe on this host's
   * GPU, or says why not): asked once the workload and the machine are resolved. A catalogued machine is
   * never probed. Its answer never fails the plan: a reason instead of figures leaves the catalogue's constants.
   */
  kernels?: (model: ModelArch, workload: Workload, machine: Machine, source: 'detected' | 'file') => Promise<KernelsInput>;
}

export function parseMachine(value: unknown, where = 'machine'): Machine {
  const result = MachineSchema.safeParse(value);
  if (!result.success) {
    throw new ApiError(
      'bad_machine',
      `${where}: ${describeIssue(result.error)} (expected the JSON that \`npm run cli -- detect --json\` prints)`,
      firstIssue(result.error).path,
    );
  }
  return result.data;
}

export async function computePlan(input: ComputePlanInput): Promise<PlanResult> {
  const scenario = input.scenario ? scenarioById(input.scenario) : null;
  const overrides = Object.fromEntries(Object.entries(input.workload ?? {}).filter(([, v]) => v !== undefined));
  const workload = { ...(scenario?.workload ?? {}), ...overrides } as WorkloadInput;
  let machine: Machine;
  let source: 'detected' | 'file' | 'catalogued';
  if (input.machine !== undefined) [machine, source] = [parseMachine(input.machine), 'file'];
  else if (scenario?.machine) [machine, source] = [scenario.machine.value, 'catalogued'];
  else [machine, source] = [await input.detect(), 'detected'];
  // a catalogued machine was never measured: this host's measurements do not describe it
  const measurements = source === 'catalogued' ? undefined : input.measurements;
  let kernels: KernelsInput | undefined;
  if (source === 'catalogued') kernels = { reason: "the machine is the scenario's catalogued one: no GPU of it was probed" };
  else if (input.kernels) {
    const parsed = parseWorkload(workload);
    try {
      kernels = await input.kernels(resolveModel(parsed.model), parsed, machine, source);
    } catch (error) {
      kernels = { reason: `the kernel probe failed (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  return planWorkload(workload, {
    machine,
    machineSource: source,
    measurements,
    calibration: input.calibration,
    memory: source === 'catalogued' ? undefined : input.memory,
    kernels,
    scenario: scenario?.id ?? null,
  });
}
