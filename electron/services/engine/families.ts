// Which model families the runner builds: resources/engine/model-families.json, the same file the
// runner's families.py reads. runs/start refuses a spec the runner would refuse (a family it does
// not build, rotary positions without a theta, GPT-2 longer than its learned positions) before
// anything is queued, with the reason and the field; the runner checks again before it starts.
import fs from 'node:fs';
import { z } from 'zod';
import { ApiError, seqBeyondModel, type RunSpec } from '../../contract';
import { enginePath } from '../resources';

const FamilySchema = z
  .object({
    architecture: z.enum(['llama', 'gpt2']),
    positions: z.enum(['rope', 'learned']),
    qkvBias: z.boolean(),
    attentionBiasFlag: z.boolean(),
    defaults: z.record(z.string(), z.unknown()).default({}),
    source: z.string(),
  })
  .strict();

export const FamiliesFileSchema = z.object({ _what: z.string().optional(), families: z.record(z.string(), FamilySchema) }).strict();
export type RunnerFamily = z.infer<typeof FamilySchema>;

let cached: Record<string, RunnerFamily> | null = null;

/** The families the runner builds, by name. */
export function runnerFamilies(): Record<string, RunnerFamily> {
  cached ??= FamiliesFileSchema.parse(JSON.parse(fs.readFileSync(enginePath('model-families.json'), 'utf8'))).families;
  return cached;
}

export interface Refusal {
  field: string;
  message: string;
}

/** Why the runner would refuse to build this spec's model at its sequence length, or null. */
export function refusalOf(
  spec: Pick<RunSpec, 'seqLen'> & {
    model: Pick<RunSpec['model'], 'id' | 'label' | 'family' | 'ropeTheta'> & { maxPositionEmbeddings?: number; hfConfig?: unknown };
  },
): Refusal | null {
  // A spec carrying its config.json is built from it by transformers, whatever its model_type; the
  // probe accepted it when it was imported, and the runner's check_config checks it again.
  if (spec.model.hfConfig) return null;
  const families = runnerFamilies();
  const fam = families[spec.model.family];
  if (!fam)
    return {
      field: 'model.family',
      message: `The runner cannot build model family '${spec.model.family}' (${spec.model.id}): it builds ${Object.keys(families).sort().join(', ')}.`,
    };
  if (fam.positions === 'rope' && !(spec.model.ropeTheta > 0))
    return {
      field: 'model.ropeTheta',
      message: `${spec.model.id}: family '${spec.model.family}' uses rotary positions, which need ropeTheta > 0 (got ${spec.model.ropeTheta}).`,
    };
  if (fam.positions === 'learned') {
    const fallback = fam.defaults.maxPositionEmbeddings;
    const positions = spec.model.maxPositionEmbeddings ?? (typeof fallback === 'number' ? fallback : undefined);
    const why = seqBeyondModel({ ...spec.model, maxPositionEmbeddings: positions }, spec.seqLen);
    if (why) return { field: 'seqLen', message: why };
  }
  return null;
}

/** Throws ApiError('unsupported_model') naming the first spec the runner would refuse. */
export function assertRunnerBuilds(specs: readonly Parameters<typeof refusalOf>[0][]): void {
  for (const spec of specs) {
    const why = refusalOf(spec);
    if (why) throw new ApiError('unsupported_model', why.message, why.field);
  }
}
