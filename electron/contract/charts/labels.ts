// Display names for strategy ids and metric units, shared by the UI, the CLI and reports.
// Pure; the strategies' names and colours are the catalogue's (resources/presets/strategies.json,
// inlined by the bundlers: the one declaration of a strategy's data).
import catalogue from '../../../resources/presets/strategies.json';

interface CatalogueNames {
  id: string;
  shortLabel: string;
  color: string;
  aliases?: string[];
}

/** Every id and alias of the catalogue → what to show for it. */
function byId<T>(pick: (s: CatalogueNames) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const s of catalogue.strategies as CatalogueNames[]) for (const id of [s.id, ...(s.aliases ?? [])]) out[id] = pick(s);
  return out;
}

const STRATEGY_NAMES = byId((s) => s.shortLabel);

/** "superoffload" → "SuperOffload"; unknown ids are shown as they are. */
export function strategyLabel(id: string): string {
  return STRATEGY_NAMES[id.toLowerCase()] ?? id;
}

// One colour per strategy, the same in every chart of every page and report (and never a
// resource's colour: memory charts separate resources by panel, not by hue). Unknown ids get a
// stable colour from their name.
const STRATEGY_COLORS = byId((s) => s.color);
const EXTRA_COLORS = ['#a16207', '#4f46e5', '#be185d', '#0369a1', '#4d7c0f', '#9333ea', '#b91c1c', '#475569'];

export function strategyColor(id: string): string {
  const key = id.toLowerCase();
  const known = STRATEGY_COLORS[key];
  if (known) return known;
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return EXTRA_COLORS[h % EXTRA_COLORS.length];
}

/** The one step statistic every page, report and CLI table shows (docs/architecture.md: a figure is a median over measured steps). */
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

/**
 * The default baseline's strategies, first choice first: ZeRO-3 Offload (DeepSpeedExamples'
 * 'zerooffload', what SuperOffload is measured against), then ZeRO-Offload (ZeRO-2). Once both
 * counted alike and the words said "the ZeRO-Offload group" while ZeRO-3 Offload was taken.
 */
const BASELINE_PREFERENCE = ['zero3-offload', 'zerooffload', 'zero2-offload'];
/** Where a strategy stands in the default baseline's order (lower first); -1: not a baseline strategy. */
export function baselineRank(id: string): number {
  return BASELINE_PREFERENCE.indexOf(id.toLowerCase());
}
/** The default baseline rule in words (history's chooseBaseline), said on the Reports page. */
export const BASELINE_RULE_WORDS = 'the ZeRO-3 Offload group, else the ZeRO-Offload group, else the oldest run’s';

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

/** A plan row's verdict: fits / at the edge (inside the memory model's error: a short trial tells) / does not fit. */
export type FitVerdict = 'fits' | 'edge' | 'does-not-fit';
export function fitVerdict(s: { fits: boolean; fit?: { verdict: FitVerdict } | null }): FitVerdict {
  return s.fits ? 'fits' : s.fit?.verdict === 'edge' ? 'edge' : 'does-not-fit';
}
/**
 * The verdict in words, the same in the Plan table's badge, its TFLOPS chart and the CLI's table, so an
 * edge row never reads "needs more GPU memory" beside the recommendation's "worth a trial" for the same
 * strategy.
 */
export function verdictWords(
  s: { fits: boolean; fit?: { verdict: FitVerdict } | null; limitedBy: string | null },
  gpuCount?: number,
): string {
  const v = fitVerdict(s);
  return v === 'fits' ? 'fits' : v === 'edge' ? 'at the edge' : limitWords(s.limitedBy, gpuCount);
}
