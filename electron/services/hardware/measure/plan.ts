// How a measurement spends its time and memory: the budget split between phases and the
// buffer sizes, scaled down when memory or time is short. Pure, so it is unit-tested.
import type { MeasureKind } from '../../../contract';

export const DEFAULT_BUDGET_SECONDS = 40;
const MIB = 1 << 20;

// Adam gets most of the time: it sweeps many thread counts and its figure feeds the tuner.
const SHARES: Record<MeasureKind, number> = { cpuAdam: 0.6, memoryBandwidth: 0.15, hostDevice: 0.25 };
export const ALL_KINDS: MeasureKind[] = ['cpuAdam', 'memoryBandwidth', 'hostDevice'];

export interface MeasurePlan {
  kinds: MeasureKind[];
  seconds: Record<MeasureKind, number>; // 0 for a kind not included
  adamParams: number;
  triadElements: number;
  copyBytes: number;
}

export function planMeasurement(input: { budgetSeconds?: number; include?: readonly MeasureKind[]; freeMemoryBytes: number }): MeasurePlan {
  const kinds = ALL_KINDS.filter((k) => (input.include ?? ALL_KINDS).includes(k));
  const budget = input.budgetSeconds ?? DEFAULT_BUDGET_SECONDS;
  const total = kinds.reduce((s, k) => s + SHARES[k], 0);
  const seconds = { cpuAdam: 0, memoryBandwidth: 0, hostDevice: 0 } as Record<MeasureKind, number>;
  for (const k of kinds) seconds[k] = (budget * SHARES[k]) / total;

  // 64M params = 1 GiB of fp32 p, g, m, v: far past any last-level cache (the biggest L3s are
  // ~1 GiB on 3D V-cache EPYCs, shared by many cores). Use at most a quarter of free memory,
  // and fewer params when the Adam share of the budget is short (filling 1 GiB and taking
  // several steps per thread count at one thread needs ~20 s on a slow host). Never below 4M
  // (64 MiB), which still exceeds the L3 of common desktop and server CPUs.
  const byMemory = Math.floor((0.25 * input.freeMemoryBytes) / 16);
  const byTime = Math.floor((seconds.cpuAdam / 20) * 64 * MIB);
  const adamParams = roundMiB(Math.max(4 * MIB, Math.min(64 * MIB, byMemory, byTime)));
  // Triad: 64M floats per array (768 MiB in all), fewer when its share of the budget is short
  // (filling the arrays alone takes ~1 s on a slow host).
  const triadByTime = Math.floor((seconds.memoryBandwidth / 6) * 64 * MIB);
  const triadElements = roundMiB(Math.max(4 * MIB, Math.min(64 * MIB, Math.floor((0.25 * input.freeMemoryBytes) / 12), triadByTime)));
  // 1 GiB per copy, as large copies are what offload moves; pinned + pageable host buffers.
  const copyBytes = roundMiB(Math.max(64 * MIB, Math.min(1024 * MIB, Math.floor((0.1 * input.freeMemoryBytes) / 2))));
  return { kinds, seconds, adamParams, triadElements, copyBytes };
}

function roundMiB(n: number): number {
  return Math.max(MIB, Math.floor(n / MIB) * MIB);
}
