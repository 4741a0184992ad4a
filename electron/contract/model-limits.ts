// The model's own limits on a workload, said once: the plan, the Plan page's form and the runner's
// refusal all answer with these words.

/** The part of a model this rule reads: its name and how many positions it has. */
export interface PositionLimited {
  id: string;
  label?: string;
  maxPositionEmbeddings?: number;
}

/** Why a sequence of `seqLen` tokens is longer than `model` reads (its max_position_embeddings),
 *  naming the field, the model and the limit; null when it fits or the model states no limit. */
export function seqBeyondModel(model: PositionLimited, seqLen: number): string | null {
  const max = model.maxPositionEmbeddings;
  if (typeof max !== 'number' || !(seqLen > max)) return null;
  const n = (v: number) => v.toLocaleString('en-US');
  return `field 'seqLen' ${n(seqLen)} is longer than ${model.label ?? model.id} reads: at most ${n(max)} positions (its max_position_embeddings); use a shorter sequence.`;
}
