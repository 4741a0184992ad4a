// The machine kinds the sample runs ran on, and the host measurement each kind's runs are predicted with —
// what the app had on that kind: the H200's reference measurement (tests/fixtures/hosts/h200-sxm-x86,
// the native driver's thorough run) and the `measure` the H100 lease took there
// (resources/samples/h100-boundary-device/measure.json). Shared by the tuner benches so both predict a
// run with the same figures, and both calibrate per kind, as the app does (backend/handlers/calibration.ts).
import fs from 'node:fs';
import path from 'node:path';
import { MachineSchema, type Machine } from '../electron/contract';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const h200Dir = path.join(root, 'tests', 'fixtures', 'hosts', 'h200-sxm-x86');

/** The H200 kind's machine file: what a run without a snapshot of its own is judged on. */
export const h200KindMachine: Machine = MachineSchema.parse(JSON.parse(fs.readFileSync(path.join(h200Dir, 'machine.json'), 'utf8')));

/** "1× NVIDIA H200": the GPU count and model, which is what calibration and the boundary group runs by. */
export const kindOf = (m: Machine): string => `${m.gpus.length}× ${m.gpus[0]?.name ?? 'no GPU'}`;

const reference = new Map<string, unknown>([
  [kindOf(h200KindMachine), JSON.parse(fs.readFileSync(path.join(h200Dir, 'native-measure.json'), 'utf8')) as unknown],
  [
    '1× NVIDIA H100 80GB HBM3',
    JSON.parse(fs.readFileSync(path.join(root, 'resources', 'samples', 'h100-boundary-device', 'measure.json'), 'utf8')) as unknown,
  ],
]);

/** The kind's measurement (undefined for a kind never measured: the catalogued figures stand in). */
export function kindMeasurements(m: Machine): unknown {
  return reference.get(kindOf(m));
}
