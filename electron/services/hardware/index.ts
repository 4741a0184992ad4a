// Hardware detection. Every source is (1) an async reader of raw text (sources.ts) and (2) a
// pure parser to schema objects (parse/*, build.ts), so tests run the real parsers on real
// captured outputs. systeminformation only for static CPU/OS facts (docs/architecture.md: it has no
// NUMA data, reports caches as totals, and its graphics() calls nvidia-smi synchronously).
import type { DiskFree, Machine } from '../../contract';
import { buildMachine } from './build';
import { readRawHost } from './sources';
import { diskFree as diskFreeAt } from './disk-free';

export type { RawHost } from './raw-host';
export { buildMachine } from './build';
export { computeWarnings } from './warnings';
export { readRawHost } from './sources';
// Host measurements (native addon) are part of the hardware service; other services reach them here.
export {
  measureHost,
  loadLatestMeasurement,
  loadMeasurementFor,
  loadMeasurementHistory,
  measurementSpread,
  saveMeasurement,
  measurementFromFile,
  pickMeasurement,
  usedMeasurement,
  nativeAvailable,
  recommendCoresPerc,
} from './measure';
export { machineKindKey, sameMachineKind, machineKindWords } from './machine-kind';
export type { MeasureHostOptions } from './measure';
// The live sampler's parsers (services/monitor, the resource view): nvidia-smi's query and dmon lines, CPU lists.
export { GPU_SAMPLE_FIELDS, parseGpuSampleLine, parseDmonLine, type GpuSampleLine, type DmonPcieLine } from './parse/nvidia-smi';
export { formatCpuList } from './parse/util';

export async function detectMachine(): Promise<Machine> {
  const started = performance.now();
  const raw = await readRawHost();
  const { problems: _problems, ...machine } = buildMachine(raw);
  return { ...machine, detectionMs: Math.round(performance.now() - started) };
}

export function diskFree(path: string): Promise<DiskFree> {
  return diskFreeAt(path);
}
