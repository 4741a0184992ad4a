// SuperOffload's cores split: the thread counts worth trying for its CPU Adam worker.
import type { HardwareProfile } from '../../../contract';
import { THROUGHPUT_CONSTANTS } from '../model/throughput-constants';

/** SuperOffload thread counts worth trying: the measured sweep's points and the "trainer keeps 2 cores per rank" point, within [1, cores − 1]. */
export function coresPercCandidates(hw: HardwareProfile, gpusPerNode: number): number[] {
  const cores = Math.max(2, hw.physicalCores);
  const keep = THROUGHPUT_CONSTANTS.minTrainingCoresPerRank * gpusPerNode;
  // the measured sweep's points from a quarter of the cores up, and the usual splits
  const threads = new Set<number>([
    ...hw.cpuAdam.map((r) => r.threads).filter((t) => t >= cores / 4),
    cores - keep,
    Math.round(cores * 0.9),
    Math.round(cores * 0.75),
    Math.round(cores / 2),
  ]);
  return [...threads]
    .filter((t) => t >= 1 && t <= cores - gpusPerNode)
    .sort((a, b) => a - b)
    .map((t) => Math.min(0.95, Math.max(0.05, Math.round((t / cores) * 100) / 100)));
}
