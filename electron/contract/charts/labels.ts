// Display names for strategy ids and metric units, shared by the UI, the CLI and reports.
// Pure; imports nothing.

// Short names for charts (resources/presets/strategies.json has the long labels); the seed
// script's aliases (superoffload | zerooffload) too.
const STRATEGY_NAMES: Record<string, string> = {
  superoffload: 'SuperOffload',
  zerooffload: 'ZeRO-Offload',
  'zero2-offload': 'ZeRO-Offload',
  'zero3-offload': 'ZeRO-3 Offload',
  'zero3-offload-param': 'ZeRO-3 param offload',
  'zero-infinity-nvme': 'ZeRO-Infinity',
  'gpu-zero1': 'ZeRO-1',
  'gpu-zero2': 'ZeRO-2',
  'gpu-zero3': 'ZeRO-3',
  'fsdp2-cpu-offload': 'FSDP2 offload',
};

/** "superoffload" → "SuperOffload"; unknown ids are shown as they are. */
export function strategyLabel(id: string): string {
  return STRATEGY_NAMES[id.toLowerCase()] ?? id;
}

/** True for the seed comparison's baseline (ZeRO-Offload, not SuperOffload). */
export function isZeroOffload(id: string): boolean {
  return ['zerooffload', 'zero2-offload', 'zero3-offload'].includes(id.toLowerCase());
}

/** A short name of a metric for headlines and axis labels. */
export const METRIC_SHORT: Record<string, string> = {
  tflopsPerGpu: 'TFLOPS/GPU',
  tokensPerSecond: 'tokens/s',
  stepSeconds: 'step time',
  peakGpuBytes: 'GPU peak',
  peakHostBytes: 'host peak',
  peakNvmeBytes: 'NVMe',
};

export function formatGiB(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes)) return '—';
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}
