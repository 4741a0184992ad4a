// The app's side of the model probe: a config.json's count from transformers' model in
// the engine environment, cached per config hash in the data folder; a refusal is passed on by
// name; a Python without transformers says the count is unavailable instead of guessing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseInterpreter, modelConfigHash, probeModelConfig } from '../../../electron/services/environment';

const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';
const gemma = {
  model_type: 'gemma',
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 1,
  head_dim: 16,
  vocab_size: 256,
};
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-model-probe-'));

describe('model probe', () => {
  it('hashes a config independently of key order', async () => {
    const reordered = Object.fromEntries(Object.entries(gemma).reverse());
    expect(await modelConfigHash(reordered)).toBe(await modelConfigHash(gemma));
    expect(await modelConfigHash({ ...gemma, vocab_size: 512 })).not.toBe(await modelConfigHash(gemma));
  });

  it('says the count is unavailable when the interpreter cannot build the model', async () => {
    const answer = await probeModelConfig(gemma, { python: '/nonexistent/python3', dataDir: tmp() });
    expect(answer.ok).toBe(false);
    if (!answer.ok) {
      expect(answer.class).toBe('unavailable');
      expect(answer.message).toMatch(/parameter count is unavailable/);
      expect(answer.fix).toMatch(/engine environment/);
    }
  });

  it.skipIf(!haveEngine)(
    'answers a Gemma config from the model and caches it; refuses a MoE config by name',
    { timeout: 120_000 },
    async () => {
      const dataDir = tmp();
      const answer = await probeModelConfig(gemma, { python: choice.python, dataDir });
      expect(answer.ok).toBe(true);
      if (answer.ok) {
        expect(answer.modelType).toBe('gemma');
        expect(answer.params).toBe(86_336);
        expect(answer.largestLayer).toEqual({ name: 'model.embed_tokens', params: 256 * 64 });
      }
      const cached = fs.readdirSync(path.join(dataDir, 'model-probe'));
      expect(cached).toEqual([`${await modelConfigHash(gemma)}.json`]);
      // The second answer comes from the cache (a broken interpreter would say unavailable).
      expect(await probeModelConfig(gemma, { python: '/nonexistent/python3', dataDir })).toEqual(answer);
      const moe = await probeModelConfig({ ...gemma, model_type: 'mixtral', num_local_experts: 4 }, { python: choice.python, dataDir });
      expect(moe.ok).toBe(false);
      if (!moe.ok)
        expect([moe.class, moe.message]).toEqual([
          'unsupported',
          expect.stringMatching(/Mixture-of-Experts model \(num_local_experts = 4\)/),
        ]);
    },
  );
});
