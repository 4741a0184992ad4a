// Import of a Hugging Face config.json (model_type llama / qwen2 / mistral / gpt2) into a ModelArch.
// A malformed file is refused with the offending field named, never guessed around.
import { ApiError, type ModelArch } from '../../../contract';
import { checkHfConfigShapes } from './hf-config-bounds';
import { countParams } from '../model/params';
import { MAX_JSON_DEPTH, scanJson } from '../user-config/json-syntax';

type Json = Record<string, unknown>;

function fail(field: string, message: string): never {
  throw new ApiError('invalid_hf_config', `config.json: field '${field}' ${message}`, field);
}

function int(cfg: Json, field: string, fallback?: number): number {
  const v = cfg[field];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    fail(field, 'is missing');
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) fail(field, `must be a positive integer (got ${JSON.stringify(v)})`);
  // Above 2^53 integers are not exact in JSON numbers (and the answer's schema refuses them).
  if (!Number.isSafeInteger(v)) fail(field, `is too large (${JSON.stringify(v)}; at most 2^53 − 1)`);
  return v;
}

/** A model whose parameter count is not an exact number cannot be planned: name its largest size field. */
function checkTotal(arch: ModelArch, fields: Record<string, number>): ModelArch {
  const total = countParams(arch).total;
  if (Number.isSafeInteger(total)) return arch;
  const [field, value] = Object.entries(fields).sort((a, b) => b[1] - a[1])[0];
  fail(field, `makes the model too large to plan (${total.toExponential(2)} parameters, more than 2^53; ${field} is ${value})`);
}

function numberField(cfg: Json, field: string, fallback: number): number {
  const v = cfg[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(field, `must be a non-negative number (got ${JSON.stringify(v)})`);
  return v;
}

function bool(cfg: Json, field: string, fallback: boolean): boolean {
  const v = cfg[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') fail(field, `must be true or false (got ${JSON.stringify(v)})`);
  return v;
}

/**
 * Text that is not JSON: say where (line, column), what JSON expected there (our scanner's words, never
 * V8's, which quote the file's text) and in which field — the last key before the break, or the file
 * when the text breaks before any key — rather than '(root)'.
 */
function failJson(text: string, offset: number, expected: string): never {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const keys = [...before.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)].map((k) => k[1]);
  const field = keys.at(-1);
  const where = `at line ${line}, column ${column}: JSON expected ${expected}`;
  if (field)
    throw new ApiError(
      'invalid_hf_config',
      `config.json: field '${field}' is not valid JSON (${where}) — check its value and the comma after it`,
      field,
    );
  throw new ApiError(
    'invalid_hf_config',
    `config.json is not valid JSON (${where}); save the model's config.json as it is on the Hub`,
    'config.json',
  );
}

/** config.json text → its object with a model_type, or an ApiError naming where it breaks. */
export function parseHfConfigText(text: string): Json & { model_type: string } {
  // Nesting bounded before anything recursive (the probe's hash, the checks) walks it.
  const scan = scanJson(text);
  if (scan.tooDeep)
    throw new ApiError(
      'invalid_hf_config',
      `config.json nests deeper than ${MAX_JSON_DEPTH} levels; a model's config.json is a few levels deep. Check that this is the right file.`,
      'config.json',
    );
  if (scan.error) failJson(text, scan.error.offset, scan.error.expected);
  let cfg: unknown;
  try {
    cfg = JSON.parse(text);
  } catch {
    failJson(text, 0, 'a JSON value'); // the scanner follows JSON.parse's grammar: not expected
  }
  if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg))
    throw new ApiError(
      'invalid_hf_config',
      `config.json must be one JSON object of fields (model_type, hidden_size, …); this one holds ${Array.isArray(cfg) ? 'a list' : JSON.stringify(cfg)}`,
      'config.json',
    );
  const c = cfg as Json;
  if (typeof c.model_type !== 'string' || !c.model_type)
    fail('model_type', 'is missing (the architecture\'s name, e.g. "llama"); import the model\'s config.json as it is on the Hub');
  return c as Json & { model_type: string };
}

/** The imported model's id: `id`, else from _name_or_path, else from model_type. */
export function hfConfigName(c: Json & { model_type: string }, id?: string): string {
  return (
    id ??
    (typeof c._name_or_path === 'string' && c._name_or_path ? c._name_or_path.split('/').pop()!.toLowerCase() : `imported-${c.model_type}`)
  );
}

const FORMULA_TYPES = new Set(['llama', 'qwen2', 'mistral', 'gpt2']);

/**
 * The field checks that need no engine environment, before a config goes to the probe: a number
 * beyond 2^53 anywhere at the top level (JSON cannot hold it exactly), and for the formula's four
 * families every size field (positive, exact, dividing) and the total, for any type the shapes no GPU
 * holds (hf-config-bounds) — so a malformed file is named
 * by its field at once, without building anything.
 */
export function checkHfConfigFields(c: Json & { model_type: string }): void {
  for (const [k, v] of Object.entries(c))
    if (typeof v === 'number' && Math.abs(v) > Number.MAX_SAFE_INTEGER) fail(k, `is too large (${JSON.stringify(v)}; at most 2^53 − 1)`);
  checkHfConfigShapes(c);
  if (FORMULA_TYPES.has(c.model_type)) importHfConfig(JSON.stringify(c));
}

/** Parse config.json text of the formula's four families without the engine environment (the CLI's
 *  `--model path/config.json`). The Plan page's import counts with transformers instead
 *  (environment/model-import.ts). `id` names the imported model. */
export function importHfConfig(text: string, id?: string): ModelArch {
  const c = parseHfConfigText(text);
  const type = c.model_type;
  const name = hfConfigName(c, id);

  if (type === 'gpt2') {
    const h = int(c, 'n_embd');
    const heads = int(c, 'n_head');
    if (h % heads !== 0) fail('n_head', `must divide n_embd (${h})`);
    const inner = c.n_inner === null || c.n_inner === undefined ? 4 * h : int(c, 'n_inner');
    return checkTotal(
      {
        id: name,
        label: `${name} (imported gpt2)`,
        family: 'gpt2',
        hiddenSize: h,
        numLayers: int(c, 'n_layer'),
        numHeads: heads,
        numKvHeads: heads,
        intermediateSize: inner,
        vocabSize: int(c, 'vocab_size'),
        tieEmbeddings: bool(c, 'tie_word_embeddings', true),
        ropeTheta: 0,
        rmsNormEps: numberField(c, 'layer_norm_epsilon', 1e-5) || 1e-5,
        headDim: h / heads,
        maxPositionEmbeddings: int(c, 'n_positions', 1024),
        attentionBias: true,
        publishedParams: null,
        source: 'imported config.json',
      },
      { n_embd: h, n_layer: int(c, 'n_layer'), n_inner: inner, vocab_size: int(c, 'vocab_size'), n_positions: int(c, 'n_positions', 1024) },
    );
  }
  if (type !== 'llama' && type !== 'qwen2' && type !== 'mistral')
    fail('model_type', `'${type}' is not supported (llama, qwen2, mistral, gpt2)`);

  const h = int(c, 'hidden_size');
  const heads = int(c, 'num_attention_heads');
  const kv = int(c, 'num_key_value_heads', heads);
  if (heads % kv !== 0) fail('num_key_value_heads', `must divide num_attention_heads (${heads})`);
  if (c.head_dim === undefined || c.head_dim === null) {
    if (h % heads !== 0) fail('num_attention_heads', `must divide hidden_size (${h}) when head_dim is absent`);
  }
  const headDim = int(c, 'head_dim', h / heads);
  const defaults = { llama: { eps: 1e-6, pos: 2048 }, qwen2: { eps: 1e-6, pos: 32768 }, mistral: { eps: 1e-6, pos: 131072 } }[type];
  const eps = numberField(c, 'rms_norm_eps', defaults.eps);
  if (eps <= 0) fail('rms_norm_eps', 'must be positive');
  return checkTotal(
    {
      id: name,
      label: `${name} (imported ${type})`,
      family: type,
      hiddenSize: h,
      numLayers: int(c, 'num_hidden_layers'),
      numHeads: heads,
      numKvHeads: kv,
      intermediateSize: int(c, 'intermediate_size'),
      vocabSize: int(c, 'vocab_size'),
      tieEmbeddings: bool(c, 'tie_word_embeddings', false),
      ropeTheta: numberField(c, 'rope_theta', 10000),
      rmsNormEps: eps,
      headDim,
      maxPositionEmbeddings: int(c, 'max_position_embeddings', defaults.pos),
      // Qwen2 always puts biases on q/k/v; llama/mistral only when attention_bias says so.
      attentionBias: type === 'qwen2' ? true : bool(c, 'attention_bias', false),
      publishedParams: null,
      source: 'imported config.json',
    },
    {
      hidden_size: h,
      num_hidden_layers: int(c, 'num_hidden_layers'),
      intermediate_size: int(c, 'intermediate_size'),
      vocab_size: int(c, 'vocab_size'),
    },
  );
}
