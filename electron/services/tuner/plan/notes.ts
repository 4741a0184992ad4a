// The plan's notes in words: where each speed figure came from, which runs the memory verdicts stand
// on, what a Mixture-of-Experts plan counts.
import type { HardwareProfile } from '../../../contract';
import { strategyLabel } from '../../../contract/charts/labels';
import type { MemoryEvidence } from '../model/memory-evidence';
import type { ParamCount } from '../model/params';
import type { PredictionMadeFor } from '../config/run-spec';

/** What each speed figure is called in the plan's notes (the profile's keys are internal names). */
const SOURCE_WORDS: Record<string, string> = {
  matmulTflops: 'GPU compute',
  hostLink: 'host↔GPU copies (pinned)',
  hostLinkPageable: 'host↔GPU copies (pageable)',
  peerLink: 'GPU↔GPU links',
  disk: 'NVMe speed',
  hostMemoryBandwidth: 'host memory bandwidth',
  cpuAdam: 'CPU Adam rate',
};
/** "catalog:h200-sxm" → "catalogue (h200-sxm)", "default (…)" → "a default figure (…)". */
function sourceWords(v: string): string {
  if (v.startsWith('catalog:')) return `catalogue (${v.slice('catalog:'.length)})`;
  if (v === 'default') return 'a default figure';
  if (v.startsWith('default ')) return `a default figure ${v.slice('default '.length)}`;
  return v;
}
/** One sentence in words: where each speed figure came from (measured, catalogue, default). */
export function speedSourcesNote(sources: Record<string, string>): string {
  return `Speed figures from: ${Object.entries(sources)
    .map(([k, v]) => `${SOURCE_WORDS[k] ?? k} — ${sourceWords(v)}`)
    .join('; ')}.`;
}

/** One line for the plan's notes: which runs the memory verdicts stand on. */
export function memoryEvidenceNote(e: MemoryEvidence | undefined): string {
  if (!e || e.points.length === 0)
    return `GPU memory verdicts: uncalibrated, ±${((e?.uncalibrated.relative ?? 0.1) * 100).toFixed(0)}% — no runs of this machine kind to measure the memory model on.`;
  const ooms = e.points.filter((p) => p.outcome !== 'fits').length;
  const bands = Object.entries(e.bands).map(([id, b]) => `${strategyLabel(id)} ±${(b.relative * 100).toFixed(0)}% (${b.runs})`);
  return `GPU memory verdicts: ${e.points.length - ooms} completed and ${ooms} out-of-memory run(s) of this machine kind; the model's worst error per strategy: ${bands.join(', ') || 'none measured'}; strategies without runs ±${(e.uncalibrated.relative * 100).toFixed(0)}% (uncalibrated).`;
}

/** Whether any speed figure of the profile was measured on the machine (a spec's prediction says so). */
function anyMeasured(hw: HardwareProfile): boolean {
  return Object.values(hw.sources).some((v) => v === 'measured');
}

/** Where a spec's prediction comes from: the profile's measured figures and the machine planned for. */
export function madeFor(hw: HardwareProfile): PredictionMadeFor {
  return { measured: anyMeasured(hw), machineId: hw.machineId ?? null, machineSource: hw.machineSource, machineLabel: hw.machineLabel };
}

/** What a Mixture-of-Experts plan counts, and that nothing has calibrated it. */
export function moeNote(p: ParamCount): string {
  const e = p.experts!;
  const b = (n: number) => `${(n / 1e9).toFixed(n < 1e9 ? 3 : 2)}B`;
  return (
    `Mixture-of-Experts: ${e.count} experts per MoE layer, ${e.perToken} per token. Memory holds all ${b(p.total)} parameters; ` +
    `time and TFLOPS count the ${b(p.active)} a token computes. Experts are not split over GPUs (no expert parallelism: ` +
    `every GPU holds every expert, or its ZeRO partition of them); under ZeRO-3 each MoE block is gathered whole ` +
    `(DeepSpeed leaf module) and the router's auxiliary loss is trained. Uncalibrated: no Mixture-of-Experts runs have ` +
    `measured this model, so the memory band is the uncalibrated one and the step time uses no fitted factors.`
  );
}
