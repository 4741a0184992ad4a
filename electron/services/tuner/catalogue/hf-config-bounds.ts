// Shape bounds a config.json must meet before transformers builds it (model-probe): one field set
// absurdly high (num_hidden_layers: 1000000) held a probe 180 s at 6.2 GB before it gave up. Two
// kinds of bound, each refusal naming the field, its value and the limit:
// - what one GPU must hold: ZeRO-3 and FSDP gather a whole layer (and the embedding) on each GPU, so
//   a layer or embedding whose bf16 weights alone exceed twice the largest catalogued GPU cannot be
//   trained by any strategy here (hidden_size, intermediate_size, vocab_size);
// - what the probe builds module by module: layers and experts, far above any published model
//   (the deepest decoders have ~130 layers, the widest MoE a few hundred experts).
import { ApiError } from '../../../contract';
import { catalog } from './presets';

type Json = Record<string, unknown>;

export const MAX_LAYERS = 1024;
export const MAX_EXPERTS = 4096;
/** Layers × experts: the expert modules the probe would build. */
export const MAX_EXPERT_MODULES = 262_144;

const HIDDEN = ['hidden_size', 'n_embd', 'd_model'];
const LAYERS = ['num_hidden_layers', 'n_layer', 'num_layers'];
const VOCAB = ['vocab_size'];
const INTERMEDIATE = ['intermediate_size', 'n_inner', 'ffn_dim', 'moe_intermediate_size'];
const EXPERTS = ['num_local_experts', 'num_experts', 'n_routed_experts'];

/** The first of `keys` that holds a positive finite number (other checks name the malformed ones). */
function field(c: Json, keys: string[]): [string, number] | null {
  for (const k of keys) {
    const v = c[k];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return [k, v];
  }
  return null;
}

function refuse(name: string, value: number, why: string): never {
  throw new ApiError(
    'invalid_hf_config',
    `config.json: field '${name}' is ${value.toLocaleString('en-US')}: ${why}. Check it against the model card.`,
    name,
  );
}

/** Bytes of bf16 weights no GPU here holds: twice the largest catalogued GPU's memory. */
function gpuBound(): { bytes: number; words: string } {
  const largest = Math.max(...catalog().gpus.map((g) => g.memoryBytes));
  return { bytes: 2 * largest, words: `twice the largest GPU's ${Math.round(largest / 1e9)} GB` };
}

function checkShapes(c: Json): void {
  const layers = field(c, LAYERS);
  if (layers && layers[1] > MAX_LAYERS) refuse(layers[0], layers[1], `at most ${MAX_LAYERS.toLocaleString('en-US')} layers are planned`);
  const experts = field(c, EXPERTS);
  if (experts && experts[1] > MAX_EXPERTS)
    refuse(experts[0], experts[1], `at most ${MAX_EXPERTS.toLocaleString('en-US')} experts are planned`);
  if (layers && experts && layers[1] * experts[1] > MAX_EXPERT_MODULES)
    refuse(
      experts[0],
      experts[1],
      `${layers[1]} layers × ${experts[1]} experts is more than ${MAX_EXPERT_MODULES.toLocaleString('en-US')} expert modules`,
    );
  const hidden = field(c, HIDDEN);
  if (!hidden) return;
  const h = hidden[1];
  const gpu = gpuBound();
  const over = (params: number) => params * 2 > gpu.bytes;
  const gb = (params: number) => `${Math.round((params * 2) / 1e9).toLocaleString('en-US')} GB`;
  // Attention alone is at least the query and output projections, h × h each.
  if (over(2 * h * h)) refuse(hidden[0], h, `one layer's attention weights alone are ${gb(2 * h * h)} in bf16, more than ${gpu.words}`);
  const inter = field(c, INTERMEDIATE);
  if (inter && over(2 * h * inter[1]))
    refuse(inter[0], inter[1], `one layer's MLP weights alone are ${gb(2 * h * inter[1])} in bf16, more than ${gpu.words}`);
  const vocab = field(c, VOCAB);
  if (vocab && over(h * vocab[1]))
    refuse(vocab[0], vocab[1], `the embedding alone is ${gb(h * vocab[1])} in bf16 (× hidden size ${h}), more than ${gpu.words}`);
}

/** Refuses a config whose shapes no GPU holds or no probe should build; a multimodal config's text_config too. */
export function checkHfConfigShapes(c: Json): void {
  checkShapes(c);
  for (const key of ['text_config', 'language_config', 'llm_config'])
    if (c[key] && typeof c[key] === 'object' && !Array.isArray(c[key])) checkShapes(c[key] as Json);
}
