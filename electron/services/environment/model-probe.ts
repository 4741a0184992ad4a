// The tuner's model table from the model itself: resources/engine/model_probe.py builds
// a config.json's model with transformers on the meta device, in the engine environment, and says
// its parameter count, layers, largest layer and attention shape — or why it cannot be built.
// Answers are cached per config hash (with the transformers pin) in <dataDir>/model-probe/, so a
// config is probed once. Without a usable engine environment the answer says the count is
// unavailable and what to do; it never guesses. Argument vector only, shell: false (run.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createGate } from '../../kernel';
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
  /** unsupported / bad_config: the runner's refusal; unavailable: no engine environment could answer;
   *  timed_out: the environment is there but building the model took longer than the probe waits. */
  class: 'unsupported' | 'bad_config' | 'unavailable' | 'timed_out';
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

/** Probes at once (each is a Python process of up to a few GB) and waiting behind them, per process:
 *  12 imports over two sockets once started 12 (7.8 GB). The same config in flight shares one. */
export const MAX_MODEL_PROBES_RUNNING = 2;
export const MAX_MODEL_PROBES_WAITING = 16;
const probes = createGate<ModelProbeAnswer>(
  MAX_MODEL_PROBES_RUNNING,
  MAX_MODEL_PROBES_WAITING,
  (active, waiting) =>
    `Too many model imports at once (${active} being counted, ${waiting} waiting); wait for their answers, then import again.`,
);
const PROBE_TIMEOUT_MS = 180_000;

/** Probe one config.json with `python` (the engine interpreter), cached under `dataDir`. `text` is
 *  the file's text, handed to the probe byte for byte (an object is written out as JSON, which loses
 *  `30.0`: only for configs that never were a file). */
export async function probeModelConfig(
  source: string | Record<string, unknown>,
  options: { python: string; dataDir: string; timeoutMs?: number },
): Promise<ModelProbeAnswer> {
  const text = typeof source === 'string' ? source : JSON.stringify(source);
  const hash = await modelConfigHash(text);
  return probes.run(`${options.python}\n${options.dataDir}\n${hash}`, () => probeOnce(text, hash, options));
}

async function probeOnce(
  text: string,
  hash: string,
  options: { python: string; dataDir: string; timeoutMs?: number },
): Promise<ModelProbeAnswer> {
  const dir = path.join(options.dataDir, 'model-probe');
  const cached = path.join(dir, `${hash}.json`);
  try {
    return JSON.parse(await fs.readFile(cached, 'utf8')) as ModelProbeAnswer;
  } catch {
    // not probed yet
  }
  await fs.mkdir(dir, { recursive: true });
  const input = path.join(dir, `${hash}.config.json`);
  await fs.writeFile(input, text);
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const result = await run(options.python, [enginePath('model_probe.py'), '--config', input], { timeoutMs });
  await fs.rm(input, { force: true });
  // The environment answered nothing because it was stopped, not because it is missing: say so
  // (once "create the engine environment" was said of a config too large to build in 180 s).
  if (result.timedOut)
    return {
      ok: false,
      class: 'timed_out',
      message: `Counting the model timed out: transformers (${options.python}) did not finish building it in ${Math.round(timeoutMs / 1000)} s.`,
      fix: 'Check its size fields (num_hidden_layers, hidden_size, vocab_size, the number of experts) against the model card, then import the config.json again.',
    };
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
