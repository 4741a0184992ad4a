// What a run ran, read back from its stored documents by one rule, and the three products of a
// workload's counts (world size, global batch, tokens per step) written once. Every reader of a
// stored run (reports, calibration, memory evidence, history's columns) goes through ranWorkloadOf,
// so a run cannot have one world size in its report and another in the tuner's calibration.
//
// The precedence: the spec first — it is what the run was asked to run, and the runner runs it
// unchanged. The runner's config line fills only what the spec lacks: a run older than the RunSpec
// (a flat spec, or none) or a field the spec never carried (the runner's parameter count). The
// runner's hello is the last word on the world size only when neither names one.
import type { StoredConfig, StoredHello, StoredSpec } from './stored';

/** The counts a world size is made of. */
export interface WorldCounts {
  gpus: number;
  nodes: number;
}

/** The counts, or a world size already known (a DeepSpeed config's, a reading's). */
export type World = WorldCounts | { worldSize: number };

/** GPUs (processes) in the run: GPUs per node × nodes. */
export function worldSize(w: World): number {
  return 'worldSize' in w ? w.worldSize : w.gpus * w.nodes;
}

/** Samples per optimizer step: micro batch × accumulation × world size (DeepSpeed's train_batch_size). */
export function globalBatch(w: World & { microBatch: number; gradAccum: number }): number {
  return w.microBatch * w.gradAccum * worldSize(w);
}

/** Tokens per optimizer step: sequence length × global batch. */
export function tokensPerStep(w: World & { seqLen: number; microBatch: number; gradAccum: number }): number {
  return w.seqLen * globalBatch(w);
}

/** A stored run's workload as read by the one precedence; null where no document says. */
export interface RanWorkload {
  modelId: string | null;
  /** The parameters a token computes (a Mixture-of-Experts model's active ones), else the runner's count. */
  params: number | null;
  layers: number | null;
  hidden: number | null;
  seqLen: number | null;
  microBatch: number | null;
  gradAccum: number | null;
  /** GPUs per node; derived from the world size where only that was stored. */
  gpus: number;
  nodes: number;
  worldSize: number;
  globalBatch: number | null;
  precision: string | null;
  activationCheckpointing: boolean | null;
}

export interface RanDocuments {
  spec?: StoredSpec | null;
  config?: StoredConfig | null;
  hello?: StoredHello | null;
}

/** The stored run's workload: the spec first, the runner's config line for what it lacks. */
export function ranWorkloadOf({ spec, config, hello }: RanDocuments): RanWorkload {
  const s = spec ?? {};
  const c = config ?? {};
  const nodes = s.nodes ?? c.nodes ?? 1;
  // A RunSpec names GPUs per node; a flat older spec its world size; older still, only the runner said.
  const world = s.gpus !== undefined ? worldSize({ gpus: s.gpus, nodes }) : (s.worldSize ?? c.worldSize ?? hello?.worldSize ?? 1);
  const microBatch = s.microBatch ?? c.microBatch ?? null;
  const gradAccum = s.gradAccum ?? c.gradAccum ?? null;
  const gpus = s.gpus ?? Math.max(1, Math.round(world / nodes));
  return {
    modelId: s.model?.id ?? c.modelId ?? null,
    params: s.model?.probed?.active ?? c.params ?? null,
    layers: s.model?.numLayers ?? c.layers ?? null,
    hidden: s.model?.hiddenSize ?? c.hidden ?? null,
    seqLen: s.seqLen ?? c.seqLen ?? null,
    microBatch,
    gradAccum,
    gpus,
    nodes,
    worldSize: world,
    // The product where both counts are known, so it agrees with the world size above; the runner's
    // figure only for a run whose documents lack them.
    globalBatch:
      microBatch !== null && gradAccum !== null ? globalBatch({ microBatch, gradAccum, worldSize: world }) : (c.globalBatch ?? null),
    precision: s.precision || c.precision || null,
    activationCheckpointing: s.activationCheckpointing ?? c.activationCheckpointing ?? null,
  };
}
