// Does a strategy's memory fit the machine, and if not, which resource it exceeds and by how much.
import type { HardwareProfile, LimitingResourceSchema, Machine, MemoryEstimate, StrategyPreset, Workload } from '../../contract';
import type { z } from 'zod';
import { strategyLabel } from '../../contract/charts/labels';
import { MEMORY_CONSTANTS } from './memory';

export type LimitingResource = z.infer<typeof LimitingResourceSchema>;

export interface FitVerdict {
  fits: boolean;
  limitedBy: LimitingResource | null;
  reason: string;
  warnings: string[];
}

export function gib(bytes: number): string {
  if (bytes >= 1e12) return `${(bytes / 2 ** 40).toFixed(2)} TiB`;
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

const TERM_LABELS: Record<string, string> = {
  modelStates: 'model states',
  activations: 'activations',
  logits: 'logits',
  stage1FullGradients: 'whole gradients (ZeRO-1)',
  gpuOptimizerShare: 'optimizer share kept on the GPU (1 − ratio)',
  unshardedParams: 'gathered parameters kept to backward',
  offloadedStates: 'offloaded parameters, gradients and Adam states',
  cpuOptimizerStates: 'optimizer states and gradients of the CPU share',
  hostParamsAndStaging: 'host copy of the parameters and staging',
  superOffloadShared: "SuperOffload worker's shared copies",
  commBuffers: 'communication buffers',
  framework: 'framework overhead',
  allocatorSlack: 'caching-allocator slack (reserved beyond allocated)',
  pinnedGradientBuffers: 'pinned gradient buffers',
  pinnedSwapBuffers: 'pinned swap buffers',
  processes: 'processes',
  adamWorkers: 'CPU Adam workers',
  fp32Gradients: 'fp32 gradients',
  paramsBf16: 'bf16 parameters',
  optimizerStates: 'optimizer states',
};

function largestTerms(terms: Record<string, number>): string {
  return Object.entries(terms)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([k, v]) => `${TERM_LABELS[k] ?? k} ${gib(v)}`)
    .join(', ');
}

/**
 * Without a GPU, DeepSpeed picks its CPU accelerator (gloo): ZeRO with the optimizer offloaded to
 * the CPU initialises and trains there (ENGINE.md), so small models can be smoke-run. Everything
 * then lives in host memory, and the figures are CPU figures, not a prediction for a GPU.
 */
export function cpuSmokeRunnable(s: StrategyPreset, mem: MemoryEstimate, hw: HardwareProfile): boolean {
  if (hw.gpuCount !== 0) return false;
  const cpuPath = s.engine === 'deepspeed' && s.offloadOptimizer === 'cpu' && s.offloadParam !== 'nvme' && !s.superOffload; // 'requires: cuda' is about GPU runs; SuperOffload asserts CUDA itself
  return cpuPath && mem.gpuBytes + mem.hostBytes <= hw.hostMemoryBytes * (1 - MEMORY_CONSTANTS.hostHeadroom);
}

/** What the machine can hold for a run: GPU per GPU, host and NVMe per node, each less its headroom. */
function usableMemory(hw: HardwareProfile): { gpu: number; host: number; nvme: number } {
  return {
    gpu: hw.gpuMemoryBytes * (1 - MEMORY_CONSTANTS.gpuHeadroom),
    host: hw.hostMemoryBytes * (1 - MEMORY_CONSTANTS.hostHeadroom),
    nvme: hw.nvmeBytes * (1 - MEMORY_CONSTANTS.nvmeHeadroom),
  };
}

/** The verdict without the words: what the micro-batch search needs, cheaply. */
export function fitsQuick(s: StrategyPreset, mem: MemoryEstimate, w: Workload, machine: Machine, hw: HardwareProfile): boolean {
  if (hw.gpuCount === 0) return cpuSmokeRunnable(s, mem, hw);
  if (w.gpus > hw.gpuCount) return false;
  if (s.requires.includes('cuda') && !machine.gpus.some((g) => g.vendor === 'nvidia')) return false;
  if (s.requires.includes('nvme') && hw.nvmeBytes === 0) return false;
  const usable = usableMemory(hw);
  return mem.gpuBytes <= usable.gpu && mem.hostBytes <= usable.host && mem.nvmeBytes <= usable.nvme;
}

/** Where a memory estimate exceeds what the machine can hold (GPU per GPU, host and NVMe per node, each
 *  less its headroom), in words; null when it fits. */
export function memoryShortfall(mem: MemoryEstimate, hw: HardwareProfile): { limitedBy: 'gpu-memory' | 'host-memory' | 'nvme'; reason: string } | null {
  const { gpu: gpuUsable, host: hostUsable, nvme: nvmeUsable } = usableMemory(hw);
  if (mem.gpuBytes > gpuUsable)
    return {
      limitedBy: 'gpu-memory',
      reason: `GPU memory: needs ${gib(mem.gpuBytes)} per GPU, ${gib(gpuUsable)} usable (${gib(hw.gpuMemoryBytes)} less ${MEMORY_CONSTANTS.gpuHeadroom * 100}% headroom) — largest: ${largestTerms(mem.gpuTerms)}`,
    };
  if (mem.hostBytes > hostUsable)
    return {
      limitedBy: 'host-memory',
      reason: `host memory: needs ${gib(mem.hostBytes)} per node, ${gib(hostUsable)} usable (${gib(hw.hostMemoryBytes)} less ${MEMORY_CONSTANTS.hostHeadroom * 100}% headroom) — largest: ${largestTerms(mem.hostTerms)}`,
    };
  if (mem.nvmeBytes > nvmeUsable) return { limitedBy: 'nvme', reason: `NVMe: needs ${gib(mem.nvmeBytes)}, ${gib(nvmeUsable)} usable on the largest NVMe disk` };
  return null;
}

export function checkFit(s: StrategyPreset, mem: MemoryEstimate, w: Workload, machine: Machine, hw: HardwareProfile): FitVerdict {
  const warnings: string[] = [];
  if (cpuSmokeRunnable(s, mem, hw))
    return {
      fits: true,
      limitedBy: null,
      reason: `CPU smoke run: no GPU here (${machine.gpuStatus.message}), so DeepSpeed's CPU accelerator runs it on the CPU with gloo; needs ${gib(mem.gpuBytes + mem.hostBytes)} of host memory. Its figures are CPU figures, not a GPU prediction.`,
      warnings: ['CPU path: TFLOPS and step time measured here say nothing about a GPU machine'],
    };
  if (hw.gpuCount === 0)
    return { fits: false, limitedBy: 'gpu-count', reason: `no GPU on this machine (${machine.gpuStatus.message}); only CPU smoke runs (tiny-llama) can run here`, warnings };
  if (w.gpus > hw.gpuCount)
    return { fits: false, limitedBy: 'gpu-count', reason: `the workload needs ${w.gpus} GPUs per node, this machine has ${hw.gpuCount}`, warnings };
  if (s.requires.includes('cuda') && !machine.gpus.some((g) => g.vendor === 'nvidia'))
    return { fits: false, limitedBy: 'requirement', reason: `${strategyLabel(s.id)} needs a CUDA GPU`, warnings };
  if (s.requires.includes('nvme') && hw.nvmeBytes === 0)
    return { fits: false, limitedBy: 'requirement', reason: 'no NVMe disk detected for the swap path (ZeRO-Infinity needs one, and libaio for the async_io op)', warnings };

  const short = memoryShortfall(mem, hw);
  if (short) return { ...short, fits: false, warnings };
  const { gpu: gpuUsable, host: hostUsable, nvme: nvmeUsable } = usableMemory(hw);

  const pinned = (s.offloadOptimizer === 'cpu' ? (mem.hostTerms.modelStates ?? mem.hostTerms.offloadedStates ?? mem.hostTerms.cpuOptimizerStates ?? 0) : 0) + (mem.hostTerms.pinnedGradientBuffers ?? 0) + (mem.hostTerms.pinnedSwapBuffers ?? 0);
  if (pinned > 0 && !machine.memory.lockedMemoryUnlimited && machine.memory.lockedMemoryLimitBytes !== null && machine.memory.lockedMemoryLimitBytes < pinned)
    warnings.push(`pinned host memory (${gib(pinned)}) exceeds the locked-memory limit (ulimit -l ${gib(machine.memory.lockedMemoryLimitBytes)}): raise it or set pin_memory false`);
  if (machine.memory.availableBytes !== null && mem.hostBytes > machine.memory.availableBytes * (1 - MEMORY_CONSTANTS.hostHeadroom))
    warnings.push(`host memory available now (${gib(machine.memory.availableBytes)}) is below the estimate: other processes hold memory`);

  const parts = [`GPU ${gib(mem.gpuBytes)} of ${gib(gpuUsable)}`, `host ${gib(mem.hostBytes)} of ${gib(hostUsable)}`];
  if (mem.nvmeBytes > 0) parts.push(`NVMe ${gib(mem.nvmeBytes)} of ${gib(nvmeUsable)}`);
  return { fits: true, limitedBy: null, reason: `fits: ${parts.join(', ')} usable`, warnings };
}
