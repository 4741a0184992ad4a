// From the CPU Adam sweep to DeepSpeed's `cpuadam_cores_perc` (the share of cores the
// SuperOffload Adam worker gets; the training process keeps the rest).
//
// The rule: recommend the FEWEST threads whose rate reaches KNEE_FRACTION (90%) of the best
// rate measured, as a fraction of the logical cores. CPU Adam is memory-bound: past the knee
// each extra core adds little (the memory bus is full) but is taken from the training process,
// which needs cores for the data loader, kernel launches and the fp32<->bf16 casts. 90% rather
// than 100% because the top of a bandwidth curve is flat and noisy: chasing the last few
// percent would pick a high thread count by chance, and 95% on a noisy host often lands on the
// same count as 100%.
import type { CpuAdamPoint } from '../../../contract';

export const KNEE_FRACTION = 0.9;

export function recommendThreads(points: readonly CpuAdamPoint[], fraction = KNEE_FRACTION): number | null {
  if (points.length === 0) return null;
  const best = Math.max(...points.map((p) => p.paramsPerSecond));
  if (!(best > 0)) return null;
  const sorted = [...points].sort((a, b) => a.threads - b.threads);
  return sorted.find((p) => p.paramsPerSecond >= fraction * best)?.threads ?? null;
}

/**
 * threads / logicalCores, rounded UP to two decimals so that DeepSpeed, which takes
 * int(perc * cores) threads, gets at least the recommended count; clamped to (0, 1].
 * The training process keeps (1 − perc) of the cores, so when the curve never flattens (the H200
 * host: still climbing at 16 threads) the Adam worker gets all cores but one, never all of them.
 */
export function recommendCoresPerc(points: readonly CpuAdamPoint[], logicalCores: number, fraction = KNEE_FRACTION): number | null {
  const threads = recommendThreads(points, fraction);
  if (threads === null || logicalCores <= 0) return null;
  const cap = logicalCores > 1 ? logicalCores - 1 : 1;
  const perc = Math.ceil((Math.min(threads, cap) / logicalCores) * 100 - 1e-9) / 100;
  return Math.min(1, Math.max(0.01, perc));
}

/**
 * The threads DeepSpeed gives the Adam worker for the recommended share: int(perc × cores) — what
 * "recommended cpuadam_cores_perc P (N threads)" must say. The knee's own count can be more: on a
 * 2-core machine the knee at 2 threads is capped to 0.5, which is 1 thread (once printed "2 threads").
 */
export function recommendWorkerThreads(points: readonly CpuAdamPoint[], logicalCores: number, fraction = KNEE_FRACTION): number | null {
  const perc = recommendCoresPerc(points, logicalCores, fraction);
  return perc === null ? null : Math.max(1, Math.floor(perc * logicalCores + 1e-9));
}
