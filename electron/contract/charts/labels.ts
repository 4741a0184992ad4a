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


// One colour per strategy, the same in every chart of every page and report (and never a
// resource's colour: memory charts separate resources by panel, not by hue). Keyed by id;
// unknown ids get a stable colour from their name.
const STRATEGY_COLORS: Record<string, string> = {
  superoffload: '#2563eb',
  zerooffload: '#d97706',
  'zero2-offload': '#d97706',
  'zero3-offload': '#7c3aed',
  'zero3-offload-param': '#db2777',
  'zero-infinity-nvme': '#0891b2',
  'gpu-zero1': '#16a34a',
  'gpu-zero2': '#65a30d',
  'gpu-zero3': '#0f766e',
  'fsdp2-cpu-offload': '#dc2626',
};
const EXTRA_COLORS = ['#a16207', '#4f46e5', '#be185d', '#0369a1', '#4d7c0f', '#9333ea', '#b91c1c', '#475569'];

export function strategyColor(id: string): string {
  const key = id.toLowerCase();
  const known = STRATEGY_COLORS[key];
  if (known) return known;
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return EXTRA_COLORS[h % EXTRA_COLORS.length];
}

/** The one step statistic every page, report and CLI table shows (DESIGN: a figure is a median over measured steps). */
export const STEP_STATISTIC = 'median of measured steps';

// Failure classes in words (the class id stays beside it for searching the docs).
const FAILURE_WORDS: Record<string, string> = {
  cuda_oom: 'Out of GPU memory',
  host_oom: 'Out of host memory',
  op_build: 'A DeepSpeed op failed to build',
  distributed: 'The distributed setup failed (NCCL)',
  missing_package: 'A Python package is missing',
  bad_config: 'The config was rejected',
  diverged: 'Training diverged (loss NaN or infinite)',
  timeout: 'Timed out',
  cancelled: 'Cancelled',
  unsupported: 'Not supported on this machine',
  internal: 'The engine hit an internal error',
  crashed: 'The engine crashed',
  protocol: 'The engine sent output it should not have',
  spawn: 'The engine did not start',
};

export function failureLabel(errorClass: string): string {
  return FAILURE_WORDS[errorClass] ?? errorClass;
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


/** Why a strategy does not fit, in words: the Plan table's badge and the Plan TFLOPS chart say the same. */
const LIMIT_WORDS: Record<string, string> = {
  'gpu-memory': 'needs more GPU memory',
  'host-memory': 'needs more host memory',
  nvme: 'needs more NVMe space',
  'gpu-count': 'needs more GPUs',
  requirement: 'not available on this machine',
};
/** On a machine without a GPU, "needs more GPUs" would read as if it had some: it needs a GPU. */
export const limitWords = (limitedBy: string | null | undefined, gpuCount?: number): string =>
  limitedBy === 'gpu-count' && gpuCount === 0 ? 'needs a GPU' : limitedBy ? (LIMIT_WORDS[limitedBy] ?? limitedBy) : 'does not fit';
