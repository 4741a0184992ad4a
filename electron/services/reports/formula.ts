// The TFLOPS formula behind every figure (docs/engine-facts.md; DeepSpeedExamples finetune_zero3.py
// `estimate_transformer_tflops`), written out with each run's own numbers.
import { perSampleFlops } from '../../contract';
import { fmt } from './format';
import type { ReportRun } from './types';

export const FORMULA_TEXT = 'per sample: (2·c·N·s + 4·c·L·h·s²) / 1e12 TFLOP, c = 4 with activation checkpointing (else 3)';
export const FORMULA_CONVENTION =
  'Aggregate TFLOPS = global batch × per-sample TFLOP ÷ step time (the DeepSpeedExamples figure, all GPUs together); ' +
  'TFLOPS per GPU = aggregate ÷ number of GPUs. c = 4 counts recomputation, so it is not MFU. ' +
  'N = the parameters a token computes (all of a dense model; the active ones of a Mixture-of-Experts model: its routers, shared experts and top-k routed experts), s = sequence length, L = layers, h = hidden size.';

/** Per-sample TFLOP of the workload, or null when a term is unknown. */
export function perSampleTflop(run: ReportRun): number | null {
  const { params: N, seqLen: s, layers: L, hidden: h, activationCheckpointing } = run.workload;
  if (N === null || s === null || L === null || h === null) return null;
  return perSampleFlops({ params: N, layers: L, hidden: h, seqLen: s, checkpointing: activationCheckpointing !== false }) / 1e12;
}

/** "c=4, N=70.6e9, s=4096, L=80, h=8192 → 2 418.4 TFLOP per sample; × 4 samples ÷ 12.3 s = …". */
export function formulaFor(run: ReportRun): string {
  const w = run.workload;
  const per = perSampleTflop(run);
  if (per === null) return 'not computed: parameters, layers, hidden size or sequence length unknown';
  const c = w.activationCheckpointing === false ? 3 : 4;
  const t = run.figures.stepSeconds?.median ?? null;
  const parts = [
    `c=${c}, N=${(w.params! / 1e9).toFixed(2)}e9, s=${w.seqLen}, L=${w.layers}, h=${w.hidden} → ${fmt(per, 2)} TFLOP per sample`,
  ];
  if (w.globalBatch !== null && t !== null && t > 0) {
    const aggregate = (w.globalBatch * per) / t;
    parts.push(
      `× ${w.globalBatch} samples ÷ ${fmt(t, 3)} s = ${fmt(aggregate, 1)} TFLOPS aggregate ÷ ${w.worldSize} GPU(s) = ${fmt(aggregate / w.worldSize, 1)} TFLOPS per GPU`,
    );
  }
  return parts.join('; ');
}
