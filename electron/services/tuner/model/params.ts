// Parameter counts from the architecture, the way the Hugging Face modules allocate them, and
// the "largest layer" DeepSpeed's ZeRO-3 estimator uses (model_to_params: the most parameters
// held directly by one module, recurse=False — for these models the embedding or the LM head).
import type { ModelArch } from '../../../contract';
import type { WorkloadKernels } from './kernels';

export interface ParamCount {
  total: number;
  perLayer: number;
  embedding: number;
  /** Largest single module (DeepSpeed's ℓ): max over embedding, LM head, each projection. */
  largestLayer: number;
  /** The parameters one token computes: `total` for a dense model; a Mixture-of-Experts model's
   *  routers, shared experts, dense layers and top-k routed experts (the FLOPs count these, the
   *  memory holds `total`). */
  active: number;
  /** A Mixture-of-Experts model's routed experts per layer and per token; absent when dense. */
  experts?: { count: number; perToken: number };
  /** The workload's own kernels measured on this GPU, where the plan has them (kernels.ts withKernels): the
   *  step-time and memory models read them instead of the catalogue's efficiencies and activation formula. */
  kernels?: WorkloadKernels;
}

export function countParams(m: ModelArch): ParamCount {
  // An imported config.json: transformers counted the model itself (docs/models.md); the formula
  // below is only for the presets' families.
  if (m.probed)
    return {
      total: m.probed.total,
      perLayer: m.probed.perLayer,
      embedding: m.probed.embedding,
      largestLayer: m.probed.largestLayer,
      active: m.probed.active ?? m.probed.total,
      ...(m.probed.experts ? { experts: m.probed.experts } : {}),
    };
  const h = m.hiddenSize;
  const qDim = m.numHeads * m.headDim;
  const kvDim = m.numKvHeads * m.headDim;
  const V = m.vocabSize;
  const I = m.intermediateSize;
  if (m.family === 'gpt2') {
    // GPT-2: Conv1D c_attn (h → 3h) and c_proj with biases, MLP c_fc (h → I) / c_proj with biases,
    // two LayerNorms (weight + bias) per block, learned positions wpe, final ln_f, tied head.
    const attn = h * 3 * h + 3 * h + h * h + h;
    const mlp = h * I + I + I * h + h;
    const perLayer = attn + mlp + 4 * h;
    const embedding = V * h + m.maxPositionEmbeddings * h;
    const total = embedding + m.numLayers * perLayer + 2 * h + (m.tieEmbeddings ? 0 : V * h);
    const largestLayer = Math.max(V * h, m.maxPositionEmbeddings * h, h * 3 * h + 3 * h, h * I + I, I * h + h);
    return { total, perLayer, embedding, largestLayer, active: total };
  }
  // Llama / Qwen2 / Mistral: q,k,v,o projections, gated MLP (gate, up, down; no bias), two RMSNorm
  // weights per block, final norm, untied or tied LM head. Biases as transformers builds them:
  // Qwen2 on q/k/v always; Llama's attention_bias on q/k/v AND o; Mistral none (its attention has no
  // bias option). tests/unit/tuner/params-probe.test.ts holds this to the model transformers builds.
  const qkvBias = m.family === 'qwen2' || (m.family === 'llama' && m.attentionBias);
  const oBias = m.family === 'llama' && m.attentionBias;
  const bias = (qkvBias ? qDim + 2 * kvDim : 0) + (oBias ? h : 0);
  const attn = h * qDim + 2 * h * kvDim + qDim * h + bias;
  const mlp = 3 * h * I;
  const perLayer = attn + mlp + 2 * h;
  const embedding = V * h;
  const total = embedding + m.numLayers * perLayer + h + (m.tieEmbeddings ? 0 : V * h);
  const largestLayer = Math.max(V * h, h * I, h * qDim + (qkvBias ? qDim : 0));
  return { total, perLayer, embedding, largestLayer, active: total };
}
