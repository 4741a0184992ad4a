// The tuner's model table from the model itself: resources/engine/model_probe.py builds
// a config.json's model with transformers on the meta device, in the engine environment, and says
// its parameter count, layers, largest layer and attention shape — or why it cannot be built.
// Answers are cached per config hash (with the transformers pin) in <dataDir>/model-probe/, so a
// config is probed once. Without a usable engine environment the answer says the count is
// unavailable and what to do; it never guesses. Argument vector only, shell: false (run.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { enginePath } from '../resources';
import { engineRequirements, pinOf } from './requirements';
import { run } from './run';

export interface ModelProbeTable {
  ok: true;
  transformers: string;
  modelType: string;
  architecture: string;
  params: number;
  layers: number;
  perLayerParams: number | null;
  /** Layers of different sizes (Gemma-3's local/global mix…): each one's count; else null. */
  perLayerParamsEach?: number[] | null;
  embeddingParams?: number | null;
  intermediateSize?: number | null;
  largestLayer: { name: string; params: number };
  hiddenSize: number | null;
  numHeads: number | null;
  numKvHeads: number | null;
  headDim: number | null;
  vocabSize: number | null;
  tieEmbeddings: boolean;
  slidingWindow: number | null;
  positionLimit: number | null;
  /** A Mixture-of-Experts model's counts (hf_model.moe_counts); null for a dense model. */
  moe?: {
    experts: number;
    expertsPerToken: number;
    activeParams: number;
    routedExpertParams: number;
    blockClass: string[];
  } | null;
}

export interface ModelProbeRefusal {
  ok: false;
  /** unsupported / bad_config: the runner's refusal; unavailable: no engine environment could answer. */
  class: 'unsupported' | 'bad_config' | 'unavailable';
  message: string;
  fix: string;
}

export type ModelProbeAnswer = ModelProbeTable | ModelProbeRefusal;

/** The hash is of the file's text, as read: `30.0` and `30` are different configs to transformers
 *  (a float field refuses an int), so a re-serialised object cannot stand for the file. The prefix
 *  leaves behind answers cached from re-serialised objects (v1), some of them wrong refusals. */
export async function modelConfigHash(text: string): Promise<string> {
  const pin = pinOf(await engineRequirements(), 'transformers') ?? 'unpinned';
  return createHash('sha256').update(`v2\ntransformers==${pin}\n${text}`).digest('hex').slice(0, 16);
}

/** Probe one config.json with `python` (the engine interpreter), cached under `dataDir`. `text` is
 *  the file's text, handed to the probe byte for byte (an object is written out as JSON, which loses
 *  `30.0`: only for configs that never were a file). */
export async function probeModelConfig(
  source: string | Record<string, unknown>,
  options: { python: string; dataDir: string; timeoutMs?: number },
): Promise<ModelProbeAnswer> {
  const text = typeof source === 'string' ? source : JSON.stringify(source);
  const dir = path.join(options.dataDir, 'model-probe');
  const hash = await modelConfigHash(text);
  const cached = path.join(dir, `${hash}.json`);
  try {
    return JSON.parse(await fs.readFile(cached, 'utf8')) as ModelProbeAnswer;
  } catch {
    // not probed yet
  }
  await fs.mkdir(dir, { recursive: true });
  const input = path.join(dir, `${hash}.config.json`);
  await fs.writeFile(input, text);
  const result = await run(options.python, [enginePath('model_probe.py'), '--config', input], { timeoutMs: options.timeoutMs ?? 180_000 });
  await fs.rm(input, { force: true });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  let answer: ModelProbeAnswer | null = null;
  try {
    answer = JSON.parse(last) as ModelProbeAnswer;
  } catch {
    answer = null;
  }
  if (!answer || typeof answer !== 'object' || !('ok' in answer)) {
    const why =
      result.error ??
      (result.timedOut ? 'it did not answer in time' : result.stderr.trim().split('\n').slice(-1)[0] || `exit ${result.code}`);
    // Not cached: a later engine environment may answer.
    return {
      ok: false,
      class: 'unavailable',
      message: `The parameter count is unavailable: the engine environment (${options.python}) could not build the model (${why}).`,
      fix: 'Create the engine environment (Setup), or repair it (bash scripts/setup-engine-venv.sh), then import the config.json again.',
    };
  }
  await fs.writeFile(cached, JSON.stringify(answer));
  return answer;
}
