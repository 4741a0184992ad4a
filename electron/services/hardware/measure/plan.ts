// How a measurement spends its time and memory: the budget split between phases and the
// buffer sizes, scaled down when memory or time is short. Pure, so it is unit-tested.
import type { MeasureKind } from '../../../contract';

// 40 s for the native phases (CPU Adam 24, triad 6, copies 10) and 10 for torch's AdamW.
export const DEFAULT_BUDGET_SECONDS = 50;
const MIB = 1 << 20;

// Adam gets most of the time: it sweeps many thread counts and its figure feeds the tuner.
// torchAdam (torch's CPU AdamW in the engine environment, FSDP2 offload's step) is one process
// that loads torch first: a few seconds before it measures anything.
const SHARES: Record<MeasureKind, number> = { cpuAdam: 0.6, memoryBandwidth: 0.15, hostDevice: 0.25, torchAdam: 0.25 };
export const ALL_KINDS: MeasureKind[] = ['cpuAdam', 'memoryBandwidth', 'hostDevice', 'torchAdam'];
/** Below this share of the budget torch's AdamW is left out of a measurement that did not ask for it by name:
 *  on a 2-core host, loading torch and stepping 16M elements 4 times with each of 3 implementations took 4.5 s
 *  (torch 2.11, 2026-12-07). The Setup step's default 30 s budget leaves it 6 s. */
export const TORCH_ADAM_MIN_SECONDS = 5;
/** The most elements torch's AdamW steps: 32M fp32 p, g, m, v = 512 MiB, past any last-level cache like the
 *  native sweep's tensor, and 4 steps of torch's per-tensor loop stay near a second on a slow host. */
const TORCH_ADAM_MAX_PARAMS = 32 * MIB;

export interface MeasurePlan {
  kinds: MeasureKind[];
  seconds: Record<MeasureKind, number>; // 0 for a kind not included
  /** Kinds a default measurement left out, with the reason in words (the budget was too short for them). */
  leftOut: Partial<Record<MeasureKind, string>>;
  adamParams: number;
  torchAdamParams: number;
  triadElements: number;
  copyBytes: number;
}

export function planMeasurement(input: {
  budgetSeconds?: number;
  include?: readonly MeasureKind[];
  freeMemoryBytes: number;
  /** The kinds are the default set (nothing asked for by name), less what the host cannot measure. Default: no `include`. */
  defaultSet?: boolean;
}): MeasurePlan {
  let kinds = ALL_KINDS.filter((k) => (input.include ?? ALL_KINDS).includes(k));
  const budget = input.budgetSeconds ?? DEFAULT_BUDGET_SECONDS;
  const leftOut: MeasurePlan['leftOut'] = {};
  const share = (k: MeasureKind, of: MeasureKind[]) => (budget * SHARES[k]) / of.reduce((s, x) => s + SHARES[x], 0);
  // A short default measurement keeps its time for the native phases; asked for by name, torch's AdamW runs anyway.
  if ((input.defaultSet ?? !input.include) && kinds.length > 1 && share('torchAdam', kinds) < TORCH_ADAM_MIN_SECONDS) {
    const needed = Math.ceil((TORCH_ADAM_MIN_SECONDS * kinds.reduce((s, x) => s + SHARES[x], 0)) / SHARES.torchAdam);
    kinds = kinds.filter((k) => k !== 'torchAdam');
    leftOut.torchAdam = `not measured: a ${budget} s budget leaves under ${TORCH_ADAM_MIN_SECONDS} s for torch's AdamW (it loads torch first); give the measurement ${needed} s or more, or measure torchAdam alone`;
  }
  const seconds = { cpuAdam: 0, memoryBandwidth: 0, hostDevice: 0, torchAdam: 0 } as Record<MeasureKind, number>;
  for (const k of kinds) seconds[k] = share(k, kinds);

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
  // torch's AdamW on at most 32M elements, and within the same share of free memory as the native sweep.
  const torchAdamParams = roundMiB(Math.max(4 * MIB, Math.min(TORCH_ADAM_MAX_PARAMS, byMemory)));
  return { kinds, seconds, leftOut, adamParams, torchAdamParams, triadElements, copyBytes };
}

function roundMiB(n: number): number {
  return Math.max(MIB, Math.floor(n / MIB) * MIB);
}
