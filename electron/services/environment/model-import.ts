// An imported config.json as the tuner's ModelArch, counted by the model itself: the
// probe (model-probe.ts) builds it with the pinned transformers on the meta device, so any decoder
// architecture transformers knows is planned with its true parameter count, layer table and
// largest layer, and the spec carries the config (hfConfig) so the runner builds exactly that model.
// A Mixture-of-Experts model carries its active parameters per token and its experts beside the
// total (docs/models.md). What the probe refuses (an unknown model_type, remote code, contradicting
// fields) or cannot answer (no engine environment) is an ApiError naming it and what to do — never a
// count guessed from a second formula.
import { ApiError, type ModelArch } from '../../contract';
import { probeModelConfig, type ModelProbeAnswer, type ModelProbeTable } from './model-probe';

type Json = Record<string, unknown>;

function firstNumber(c: Json, ...keys: string[]): number | null {
  for (const k of keys) {
    const v = c[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

/** The probe's answer → the ModelArch the tuner plans with, or the refusal as an ApiError. */
export function archFromProbe(config: Json, id: string, answer: ModelProbeAnswer, text: string | null = null): ModelArch {
  if (!answer.ok) {
    if (answer.class === 'timed_out') throw new ApiError('timed_out', `config.json: ${answer.message} ${answer.fix}`, 'config.json');
    if (answer.class === 'unavailable')
      throw new ApiError(
        'params_unavailable',
        `Parameter count unavailable — create the engine environment (the app’s Setup, or: bash scripts/setup-engine-venv.sh). ${answer.message} ${answer.fix}`,
        'config.json',
      );
    throw new ApiError(
      answer.class === 'unsupported' ? 'unsupported_model' : 'invalid_hf_config',
      `config.json: ${answer.message} ${answer.fix}`,
      'config.json',
    );
  }
  const t: ModelProbeTable = answer;
  if (!Number.isSafeInteger(t.params))
    throw new ApiError(
      'invalid_hf_config',
      `config.json: ${t.architecture} has ${t.params.toExponential(2)} parameters, more than 2^53: too large to plan exactly. Check its size fields.`,
      'config.json',
    );
  const need = (field: string, v: number | null | undefined): number => {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
    throw new ApiError(
      'invalid_hf_config',
      `config.json: transformers built ${t.architecture} but its ${field} could not be read (got ${JSON.stringify(v)}); the tuner needs it to plan.`,
      'config.json',
    );
  };
  const h = need('hidden size', t.hiddenSize);
  const heads = need('attention heads', t.numHeads);
  const rope = (t as { ropeParameters?: Json | null }).ropeParameters;
  const ropeTheta = firstNumber(rope ?? {}, 'rope_theta') ?? firstNumber(config, 'rope_theta') ?? (t.positionLimit ? 0 : 10000);
  const layers = need('decoder layers', t.layers);
  // Layers of different sizes: the tuner's per-layer figure is their mean (the total stays exact).
  const each = t.perLayerParamsEach;
  const perLayer = t.perLayerParams ?? (each?.length ? Math.round(each.reduce((a, b) => a + b, 0) / each.length) : 0);
  return {
    id,
    label: `${id} (imported ${t.modelType})`,
    family: t.modelType,
    hiddenSize: h,
    numLayers: layers,
    numHeads: heads,
    numKvHeads: need('key/value heads', t.numKvHeads),
    intermediateSize: need('intermediate size', t.intermediateSize ?? 4 * h),
    vocabSize: need('vocabulary size', t.vocabSize),
    tieEmbeddings: t.tieEmbeddings,
    ropeTheta,
    rmsNormEps: firstNumber(config, 'rms_norm_eps', 'layer_norm_epsilon', 'layer_norm_eps') || 1e-5,
    headDim: need('head dimension', t.headDim),
    maxPositionEmbeddings: t.positionLimit ?? firstNumber(config, 'max_position_embeddings') ?? 131072,
    attentionBias: config.attention_bias === true || t.modelType === 'qwen2',
    publishedParams: null,
    source: `imported config.json: ${t.architecture}, counted by transformers ${t.transformers}`,
    hfConfig: config,
    // The file's own text travels with the object: the runner builds from it (30.0 stays a float).
    ...(text !== null ? { hfConfigText: text } : {}),
    probed: {
      total: t.params,
      perLayer,
      embedding: t.embeddingParams ?? 0,
      largestLayer: t.largestLayer.params,
      transformers: t.transformers,
      ...(t.moe ? { active: t.moe.activeParams, experts: { count: t.moe.experts, perToken: t.moe.expertsPerToken } } : {}),
    },
  };
}

/** Probe a config.json in the engine environment (`python`; cached per file text under dataDir) and
 *  answer its ModelArch. `config` is `text` parsed (the caller's checks name its fields); `text` is
 *  the file as read, which the probe and the runner parse in Python, byte for byte. */
export async function importProbedConfig(
  config: Json,
  text: string,
  id: string,
  options: { python: string; dataDir: string; timeoutMs?: number },
): Promise<ModelArch> {
  return archFromProbe(config, id, await probeModelConfig(text, options), text);
}
