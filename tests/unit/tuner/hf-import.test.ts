// Import of Hugging Face config.json files (fixtures written from the published values).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../electron/contract';
import { countParams, importHfConfig, resolveModel } from '../../../electron/services/tuner';

const dir = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'hf-configs');
const text = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');

describe('HF config import', () => {
  for (const id of ['llama-3.1-8b', 'llama-3.2-1b', 'qwen2.5-7b', 'mistral-7b', 'gpt2'])
    it(`${id}.json imports to the preset's architecture and count`, () => {
      const imported = importHfConfig(text(`${id}.json`), id);
      const preset = resolveModel(id);
      for (const key of [
        'family',
        'hiddenSize',
        'numLayers',
        'numHeads',
        'numKvHeads',
        'intermediateSize',
        'vocabSize',
        'tieEmbeddings',
        'headDim',
        'attentionBias',
      ] as const)
        expect([key, imported[key]]).toEqual([key, preset[key]]);
      expect(countParams(imported).total).toBe(countParams(preset).total);
    });
  it('resolveModel takes a path to a config.json', () => {
    expect(countParams(resolveModel(path.join(dir, 'qwen2.5-7b.json'))).total).toBe(7_615_616_512);
  });
  const refuse = (cfg: unknown, field: string) => {
    let error: unknown;
    try {
      importHfConfig(typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).field).toBe(field);
    expect((error as ApiError).message).toContain(field);
  };
  const llama = JSON.parse(text('llama-3.1-8b.json'));
  it('refuses a malformed config naming the field', () => {
    // Text that is not JSON names the field before the break and where it is, not '(root)'.
    refuse('{not json', 'config.json');
    refuse('[1, 2]', 'config.json');
    const broken = JSON.stringify(llama, null, 2).replace('"num_hidden_layers": 32,', '"num_hidden_layers": 32');
    refuse(broken, 'num_hidden_layers');
    expect(() => importHfConfig(broken)).toThrow(
      /field 'num_hidden_layers' is not valid JSON \(at line \d+, column \d+: .*\) — check its value and the comma after it/,
    );
    refuse('{"model_type": "llama", "hidden_size": 40x96}', 'hidden_size');
    refuse({ ...llama, model_type: 'bert' }, 'model_type');
    refuse({ ...llama, model_type: undefined }, 'model_type');
    refuse({ ...llama, hidden_size: undefined }, 'hidden_size');
    refuse({ ...llama, num_hidden_layers: '32' }, 'num_hidden_layers');
    refuse({ ...llama, num_key_value_heads: 5 }, 'num_key_value_heads');
    refuse({ ...llama, vocab_size: -1 }, 'vocab_size');
    refuse({ model_type: 'gpt2', n_embd: 768, n_layer: 12, vocab_size: 50257 }, 'n_head');
  });
});
