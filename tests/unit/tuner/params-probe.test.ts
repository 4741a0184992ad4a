// One model table: the tuner's formula (countParams) equals the parameter count of the
// model transformers builds (resources/engine/model_probe.py, on the meta device) for every preset,
// every fixture config.json and a Llama with attention_bias (the o_proj bias the formula missed:
// 202,304 vs 202,432). Needs the engine venv (scripts/setup-engine-venv.sh); the probe runs once
// for all configs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelArch } from '../../../electron/contract';
import { chooseInterpreter } from '../../../electron/services/engine';
import { catalog, countParams, importHfConfig } from '../../../electron/services/tuner';

const root = path.resolve(import.meta.dirname, '../../..');
const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';

/** The family's config.json for a preset's numbers (what the runner writes for a spec without one). */
function hfConfigOf(m: ModelArch): Record<string, unknown> {
  if (m.family === 'gpt2')
    return {
      model_type: 'gpt2',
      n_embd: m.hiddenSize,
      n_layer: m.numLayers,
      n_head: m.numHeads,
      n_inner: m.intermediateSize,
      vocab_size: m.vocabSize,
      n_positions: m.maxPositionEmbeddings,
      tie_word_embeddings: m.tieEmbeddings,
    };
  return {
    model_type: m.family,
    hidden_size: m.hiddenSize,
    num_hidden_layers: m.numLayers,
    num_attention_heads: m.numHeads,
    num_key_value_heads: m.numKvHeads,
    head_dim: m.headDim,
    intermediate_size: m.intermediateSize,
    vocab_size: m.vocabSize,
    tie_word_embeddings: m.tieEmbeddings,
    rope_theta: m.ropeTheta,
    max_position_embeddings: m.maxPositionEmbeddings,
    ...(m.family === 'llama' ? { attention_bias: m.attentionBias } : {}),
  };
}

const fixtures = path.join(root, 'tests/fixtures/hf-configs');
const cases: { name: string; arch: ModelArch; config: Record<string, unknown> }[] = [
  ...catalog().models.map((m) => ({ name: `preset ${m.id}`, arch: m, config: hfConfigOf(m) })),
  ...fs
    .readdirSync(fixtures)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const text = fs.readFileSync(path.join(fixtures, f), 'utf8');
      return { name: `fixture ${f}`, arch: importHfConfig(text, f), config: JSON.parse(text) as Record<string, unknown> };
    }),
];
const biased = JSON.stringify({
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 256,
  tie_word_embeddings: true,
  attention_bias: true,
});
cases.push({ name: 'tiny llama with attention_bias', arch: importHfConfig(biased, 'tiny-bias'), config: JSON.parse(biased) });

describe.skipIf(!haveEngine)(`tuner count = transformers' model (${haveEngine ? choice.python : 'skipped: no engine venv'})`, () => {
  it('every preset, fixture and the attention_bias Llama', { timeout: 300_000 }, () => {
    const run = spawnSync(choice.python, [path.join(root, 'resources/engine/model_probe.py'), '--config', '-'], {
      input: JSON.stringify(cases.map((c) => c.config)),
      encoding: 'utf8',
      shell: false,
      cwd: root,
    });
    expect(run.status, run.stderr).toBe(0);
    const answers = JSON.parse(run.stdout.trim().split('\n').pop()!) as { ok: boolean; params: number; largestLayer: { params: number } }[];
    const wrong = cases
      .map((c, i) => ({ name: c.name, tuner: countParams(c.arch).total, model: answers[i].params }))
      .filter((r) => r.tuner !== r.model);
    expect(wrong).toEqual([]);
    // And the largest layer DeepSpeed's estimator uses.
    const largest = cases
      .map((c, i) => ({ name: c.name, tuner: countParams(c.arch).largestLayer, model: answers[i].largestLayer.params }))
      .filter((r) => r.tuner !== r.model);
    expect(largest).toEqual([]);
  });
});
