// The reporting FLOPs of one training sample: DeepSpeedExamples finetune_zero3.py's
// estimate_transformer_tflops (docs/engine-facts.md), which the runner's flops.py also computes for the
// figures it prints. One formula here so the tuner's predicted TFLOPS and the reports' measured TFLOPS
// are the same quantity.

/** FLOPs per sample: 2·c·N·s + 4·c·L·h·s², c = 4 with activation checkpointing (its recompute), else 3.
 *  N: the parameters a token computes (the active ones of a Mixture-of-Experts model). */
export function perSampleFlops(w: { params: number; layers: number; hidden: number; seqLen: number; checkpointing: boolean }): number {
  const c = w.checkpointing ? 4 : 3;
  return 2 * c * w.params * w.seqLen + 4 * c * w.layers * w.hidden * w.seqLen * w.seqLen;
}
