// Does a strategy's memory fit the machine, and if not, which resource it exceeds and by how much.
import type { HardwareProfile, LimitingResourceSchema, Machine, MemoryEstimate, StrategyPreset, Workload } from '../../../contract';
import type { z } from 'zod';
import { strategyLabel } from '../../../contract/charts/labels';
import { MEMORY_CONSTANTS } from './memory';
import { mechanismOf } from '../mechanisms/registry';
import { UNCALIBRATED_BAND, type MemoryBand, type MeasuredFit } from './memory-evidence';

export type LimitingResource = z.infer<typeof LimitingResourceSchema>;

/** fits: inside the machine with the memory error band to spare (or measured to run); edge: within the
 *  band of a limit — the model cannot tell, a short trial can; does-not-fit: past it by more than the band
 *  (or measured to run out). */
export type FitClass = 'fits' | 'edge' | 'does-not-fit';

/** What decides a GPU verdict besides the estimate: the model's error band and the machine's own runs. */
export interface FitEvidence {
  band: MemoryBand;
  measured: MeasuredFit | null;
}

export interface FitVerdict {
  fits: boolean;
  verdict: FitClass;
  limitedBy: LimitingResource | null;
  reason: string;
  warnings: string[];
  /** ± GPU bytes the verdict allows for (the strategy's measured memory error, or the uncalibrated band). */
  gpuBandBytes: number;
  band: MemoryBand | null;
  measured: MeasuredFit | null;
}

export function gib(bytes: number): string {
  if (bytes >= 1e12) return `${(bytes / 2 ** 40).toFixed(2)} TiB`;
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

const TERM_LABELS: Record<string, string> = {
  modelStates: 'model states',
  activations: 'activations',
  logits: 'logits',
  recompute: "one block's recomputed activations",
  'phase:loss': 'the loss phase (logits, their fp32 copies)',
  'phase:backward': "the backward phase (a block's recompute, gradients, buckets)",
  'phase:step': 'the optimizer step (bf16 gradients, their flattened copy, the fp32 partition)',
  paramsBf16: 'bf16 parameters',
  gradientsBf16: 'bf16 gradients',
  fp32SubGroupGradient: 'fp32 gradient of one sub-group',
  gatheredLayer: 'gathered layer + prefetch',
  allocatorBlock: "the allocator's free block for the largest tensor",
  stage1FullGradients: 'whole gradients (ZeRO-1)',
  gpuOptimizerShare: 'optimizer share kept on the GPU (1 − ratio)',
  unshardedParams: 'gathered parameters kept to backward',
  offloadedStates: 'offloaded parameters, gradients and Adam states',
  cpuOptimizerStates: 'optimizer states and gradients of the CPU share',
  hostParamsAndStaging: 'host copy of the parameters and staging',
  superOffloadShared: 'the fp32 CPU share in shared memory, counted again in the Adam worker',
  commBuffers: 'communication buffers',
  framework: 'framework overhead',
  allocatorSlack: 'caching-allocator slack (reserved beyond allocated)',
  pinnedSwapBuffers: 'pinned swap buffers',
  processes: 'processes',
  adamWorkers: 'CPU Adam workers',
  fp32Gradients: 'fp32 gradients',
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
 * the CPU initialises and trains there (docs/engine-facts.md), so small models can be smoke-run. Everything
 * then lives in host memory, and the figures are CPU figures, not a prediction for a GPU.
 */
export function cpuSmokeRunnable(s: StrategyPreset, mem: MemoryEstimate, hw: HardwareProfile): boolean {
  if (hw.gpuCount !== 0) return false;
  return mechanismOf(s).withoutGpu === 'smoke' && cpuSmokeHostBytes(mem) <= hw.hostMemoryBytes * (1 - MEMORY_CONSTANTS.hostHeadroom);
}

/** Host memory of a CPU smoke run: the GPU side's estimate lands in host memory too (an upper bound:
 *  it keeps the CUDA context's share, which a CPU run does not have). */
export function cpuSmokeHostBytes(mem: MemoryEstimate): number {
  return mem.gpuBytes + mem.hostBytes;
}

/** What the machine can hold for a run: GPU per GPU (all of it: the margin is the error band, gpuClass),
 *  host and NVMe per node, each less its headroom. */
function usableMemory(hw: HardwareProfile): { gpu: number; host: number; nvme: number } {
  return {
    gpu: hw.gpuMemoryBytes,
    host: hw.hostMemoryBytes * (1 - MEMORY_CONSTANTS.hostHeadroom),
    nvme: hw.nvmeBytes * (1 - MEMORY_CONSTANTS.nvmeHeadroom),
  };
}

/** ± GPU bytes of an estimate under a band: a share of the predicted allocated bytes. */
export function gpuBandBytes(mem: MemoryEstimate, band: MemoryBand | null | undefined): number {
  return band ? band.relative * (mem.gpuAllocatedBytes ?? mem.gpuBytes) : 0;
}

/** The part of an estimate the allocator may do without under pressure: a share of its free block (memory-constants.ts). */
function allocatorSoftBytes(mem: MemoryEstimate): number {
  return MEMORY_CONSTANTS.allocatorBlockSoftShare * (mem.gpuTerms?.allocatorBlock ?? 0);
}

/** The estimate's range: from its lower edge (less the band and the allocator's soft share) to its upper (plus the band). */
function gpuRange(mem: MemoryEstimate, band: MemoryBand | null | undefined): { lower: number; upper: number } {
  const b = gpuBandBytes(mem, band);
  return { lower: mem.gpuBytes - b - allocatorSoftBytes(mem), upper: mem.gpuBytes + b };
}

/** The GPU side of a verdict: the estimate's range against the GPU's capacity — fits above it all, does not fit below it all. */
export function gpuClass(mem: MemoryEstimate, hw: HardwareProfile, band: MemoryBand | null | undefined): FitClass {
  const limit = usableMemory(hw).gpu;
  const { lower, upper } = gpuRange(mem, band);
  if (upper <= limit) return 'fits';
  return lower > limit ? 'does-not-fit' : 'edge';
}

/**
 * How likely an estimate is to fit, from where the GPU's capacity falls inside its band: 1 at or past its
 * upper edge, 0 at or past its lower, linear between (the band's worst-case error read as a uniform
 * spread). Orders the trials at the edge: a fast configuration that almost surely runs out is worth less
 * than a slightly slower one that almost surely fits.
 */
export function gpuFitChance(mem: MemoryEstimate, hw: HardwareProfile, band: MemoryBand | null | undefined): number {
  const limit = usableMemory(hw).gpu;
  const { lower, upper } = gpuRange(mem, band);
  if (upper <= lower) return limit >= upper ? 1 : 0;
  return Math.min(1, Math.max(0, (limit - lower) / (upper - lower)));
}

/** The verdict without the words: what the micro-batch search needs, cheaply. A measured outcome wins over the model. */
export function fitClass(
  s: StrategyPreset,
  mem: MemoryEstimate,
  w: Workload,
  machine: Machine,
  hw: HardwareProfile,
  evidence?: FitEvidence,
): FitClass {
  if (hw.gpuCount === 0) return cpuSmokeRunnable(s, mem, hw) ? 'fits' : 'does-not-fit';
  if (w.gpus > hw.gpuCount) return 'does-not-fit';
  if (s.requires.includes('cuda') && !machine.gpus.some((g) => g.vendor === 'nvidia')) return 'does-not-fit';
  if (s.requires.includes('nvme') && hw.nvmeBytes === 0) return 'does-not-fit';
  if (evidence?.measured) return evidence.measured.outcome === 'fits' ? 'fits' : 'does-not-fit';
  const usable = usableMemory(hw);
  if (mem.hostBytes > usable.host || mem.nvmeBytes > usable.nvme) return 'does-not-fit';
  return gpuClass(mem, hw, evidence?.band);
}

export function fitsQuick(
  s: StrategyPreset,
  mem: MemoryEstimate,
  w: Workload,
  machine: Machine,
  hw: HardwareProfile,
  evidence?: FitEvidence,
): boolean {
  return fitClass(s, mem, w, machine, hw, evidence) === 'fits';
}

/** Where a memory estimate exceeds what the machine can hold (GPU per GPU, host and NVMe per node, each
 *  less its headroom), in words; null when it fits. */
export function memoryShortfall(
  mem: MemoryEstimate,
  hw: HardwareProfile,
): { limitedBy: 'gpu-memory' | 'host-memory' | 'nvme'; reason: string } | null {
  const gpuUsable = usableMemory(hw).gpu;
  if (mem.gpuBytes > gpuUsable)
    return {
      limitedBy: 'gpu-memory',
      reason: `GPU memory: needs ${gib(mem.gpuBytes)} per GPU, the GPU has ${gib(gpuUsable)} — largest: ${largestTerms(mem.gpuTerms)}`,
    };
  const host = hostShortfall(mem, hw);
  if (host) return { limitedBy: 'host-memory', reason: host };
  const nvme = nvmeShortfall(mem, hw);
  if (nvme) return { limitedBy: 'nvme', reason: nvme };
  return null;
}

/** Host memory short of the estimate (per node, less its headroom), in words; null when it holds it. */
function hostShortfall(mem: MemoryEstimate, hw: HardwareProfile): string | null {
  const hostUsable = usableMemory(hw).host;
  if (mem.hostBytes <= hostUsable) return null;
  return `host memory: needs ${gib(mem.hostBytes)} per node, ${gib(hostUsable)} usable (${gib(hw.hostMemoryBytes)} less ${MEMORY_CONSTANTS.hostHeadroom * 100}% headroom) — largest: ${largestTerms(mem.hostTerms)}`;
}

/** The largest NVMe disk short of the estimate's swap, in words; null when it holds it. */
function nvmeShortfall(mem: MemoryEstimate, hw: HardwareProfile): string | null {
  const nvmeUsable = usableMemory(hw).nvme;
  return mem.nvmeBytes > nvmeUsable ? `NVMe: needs ${gib(mem.nvmeBytes)}, ${gib(nvmeUsable)} usable on the largest NVMe disk` : null;
}

/** The band in words: where its width comes from. */
export function bandWords(band: MemoryBand): string {
  const pct = `±${(band.relative * 100).toFixed(0)}%`;
  if (band.source === 'measured')
    return `${pct}: the model's worst GPU error over ${band.runs} run(s) of this strategy on this machine kind`;
  return band.relative === UNCALIBRATED_BAND && band.runs === 0
    ? `uncalibrated, ${pct}: no strategy has runs here to measure the model on`
    : `uncalibrated, ${pct}: no runs of this strategy on this machine kind — the model's worst error on models and machine kinds it was never run on, or over the strategies that have runs here if wider`;
}

/** Where a neighbouring run stands: "at micro 2, seq 4096 — as many tokens per micro batch (8192)". */
function neighbourWords(
  ran: Pick<Workload, 'microBatch' | 'seqLen'>,
  w: Pick<Workload, 'microBatch' | 'seqLen'>,
  side: 'more' | 'fewer',
): string {
  const t = ran.microBatch * ran.seqLen;
  const seq = ran.seqLen === w.seqLen ? '' : `, seq ${ran.seqLen}`;
  const how = t === w.microBatch * w.seqLen ? 'as many' : side;
  return `at micro ${ran.microBatch}${seq} — ${how} tokens per micro batch (${t}) of this configuration`;
}

export function checkFit(
  s: StrategyPreset,
  mem: MemoryEstimate,
  w: Workload,
  machine: Machine,
  hw: HardwareProfile,
  evidence?: FitEvidence,
): FitVerdict {
  const warnings: string[] = [];
  const band = evidence?.band ?? null;
  const measured = evidence?.measured ?? null;
  const bandBytes = gpuBandBytes(mem, band);
  const base = { warnings, gpuBandBytes: bandBytes, band, measured };
  const no = (limitedBy: LimitingResource, reason: string): FitVerdict => ({
    ...base,
    fits: false,
    verdict: 'does-not-fit',
    limitedBy,
    reason,
  });
  if (cpuSmokeRunnable(s, mem, hw))
    return {
      ...base,
      fits: true,
      verdict: 'fits',
      limitedBy: null,
      reason: `CPU smoke run: no GPU here (${machine.gpuStatus.message}), so DeepSpeed's CPU accelerator runs it on the CPU with gloo; needs ${gib(cpuSmokeHostBytes(mem))} of host memory. Its figures are CPU figures, not a GPU prediction.`,
      warnings: ['CPU path: TFLOPS and step time measured here say nothing about a GPU machine'],
    };
  if (hw.gpuCount === 0)
    return no('gpu-count', `no GPU on this machine (${machine.gpuStatus.message}); only CPU smoke runs (tiny-llama) can run here`);
  if (w.gpus > hw.gpuCount) return no('gpu-count', `the workload needs ${w.gpus} GPUs per node, this machine has ${hw.gpuCount}`);
  if (s.requires.includes('cuda') && !machine.gpus.some((g) => g.vendor === 'nvidia'))
    return no('requirement', `${strategyLabel(s.id)} needs a CUDA GPU`);
  if (s.requires.includes('nvme') && hw.nvmeBytes === 0) {
    // A disk alone would not do where the GPU or the host is short too: say so, with how much.
    const also = memoryShortfall(mem, hw);
    return no(
      'requirement',
      `no NVMe disk detected for the swap path (ZeRO-Infinity needs one, and libaio for the async_io op)${also && also.limitedBy !== 'nvme' ? `; with one it would still be short of ${also.reason}` : ''}`,
    );
  }

  const { gpu: gpuUsable, host: hostUsable, nvme: nvmeUsable } = usableMemory(hw);
  const allocated = mem.gpuAllocatedBytes ?? mem.gpuBytes;
  if (measured) {
    const p = measured.point;
    if (measured.outcome !== 'fits') {
      const where = measured.exact ? `run ${p.runId}` : `run ${p.runId} ${neighbourWords(p.workload, w, 'fewer')}`;
      return no(
        measured.outcome === 'host_oom' ? 'host-memory' : 'gpu-memory',
        `measured: ran out of ${measured.outcome === 'host_oom' ? 'host' : 'GPU'} memory here (${where}); the model says ${gib(mem.gpuBytes)} per GPU, host ${gib(mem.hostBytes)}`,
      );
    }
    const where = measured.exact ? `run ${p.runId}` : `run ${p.runId} ${neighbourWords(p.workload, w, 'more')}`;
    const peak = p.peakGpuBytes ? `, peaked at ${gib(p.peakGpuBytes)} allocated` : '';
    return {
      ...base,
      fits: true,
      verdict: 'fits',
      limitedBy: null,
      reason: `measured: runs here (${where}${peak}); the model says ${gib(allocated)} allocated, ${gib(mem.gpuBytes)} with the allocator's block and the CUDA context, of ${gib(gpuUsable)}`,
    };
  }

  const gpu = gpuClass(mem, hw, band);
  // One evaluation, two figures of it: what a run's peak is compared with (allocated: the spec's gpuPeakBytes)
  // and what the verdict needs on top (the allocator's free block, the CUDA context) — both said, so "63.1 GiB"
  // in the spec and "needs 76.9" here read as one configuration (Phi-3-mini ZeRO-Offload micro 25, H100).
  const allocatedWords = `peak allocated ${gib(mem.gpuAllocatedBytes ?? mem.gpuBytes)}, the spec's figure, + the allocator's free block and the CUDA context`;
  const need = band
    ? `${gib(mem.gpuBytes)} ± ${gib(bandBytes)} per GPU (${allocatedWords}; ${bandWords(band)})`
    : `${gib(mem.gpuBytes)} per GPU (${allocatedWords})`;
  // a limit passed for sure is named before one the model cannot call (the edge)
  if (gpu === 'does-not-fit')
    return no('gpu-memory', `GPU memory: needs ${need}, the GPU has ${gib(gpuUsable)} — largest: ${largestTerms(mem.gpuTerms)}`);
  const hostShort = hostShortfall(mem, hw);
  if (hostShort) return no('host-memory', hostShort);
  const nvmeShort = nvmeShortfall(mem, hw);
  if (nvmeShort) return no('nvme', nvmeShort);
  if (gpu === 'edge')
    return {
      ...base,
      fits: false,
      verdict: 'edge',
      limitedBy: 'gpu-memory',
      reason: `at the edge of GPU memory: needs ${need}, the GPU has ${gib(gpuUsable)} — within the model's error, so only a short trial can tell (tune tests it; not recommended unmeasured)`,
    };

  const pinned = mechanismOf(s).pinnedHostTerms.reduce((sum, term) => sum + (mem.hostTerms[term] ?? 0), 0);
  if (
    pinned > 0 &&
    !machine.memory.lockedMemoryUnlimited &&
    machine.memory.lockedMemoryLimitBytes !== null &&
    machine.memory.lockedMemoryLimitBytes < pinned
  )
    warnings.push(
      `pinned host memory (${gib(pinned)}) exceeds the locked-memory limit (ulimit -l ${gib(machine.memory.lockedMemoryLimitBytes)}): raise it or set pin_memory false`,
    );
  if (machine.memory.availableBytes !== null && mem.hostBytes > machine.memory.availableBytes * (1 - MEMORY_CONSTANTS.hostHeadroom))
    warnings.push(`host memory available now (${gib(machine.memory.availableBytes)}) is below the estimate: other processes hold memory`);

  const parts = [`GPU ${need} of ${gib(gpuUsable)}`, `host ${gib(mem.hostBytes)} of ${gib(hostUsable)}`];
  if (mem.nvmeBytes > 0) parts.push(`NVMe ${gib(mem.nvmeBytes)} of ${gib(nvmeUsable)}`);
  return { ...base, fits: true, verdict: 'fits', limitedBy: null, reason: `fits: ${parts.join(', ')} usable`, warnings };
}
