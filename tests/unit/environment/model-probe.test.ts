// The app's side of the model probe: a config.json's count from transformers' model in
// the engine environment, cached per config hash in the data folder; a refusal is passed on by
// name; a Python without transformers says the count is unavailable instead of guessing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelConfigHash, probeModelConfig } from '../../../electron/services/environment';
import { engineChoice, haveEngine, scratchDir, TINY_GEMMA } from '../../helpers/model-probe';

const choice = engineChoice;
const gemma = TINY_GEMMA;
const fixtures = path.resolve(import.meta.dirname, '../../fixtures/model-configs');
const tmp = () => scratchDir('os-model-probe-');

describe('model probe', () => {
  it("hashes the file's text: 30.0 and 30 are different configs to transformers", async () => {
    const text = JSON.stringify(gemma);
    expect(await modelConfigHash(text)).toBe(await modelConfigHash(JSON.stringify({ ...gemma })));
    expect(await modelConfigHash(JSON.stringify({ ...gemma, vocab_size: 512 }))).not.toBe(await modelConfigHash(text));
    const float = '{"model_type": "gemma2", "final_logit_softcapping": 30.0}';
    expect(await modelConfigHash(float)).not.toBe(await modelConfigHash(JSON.stringify(JSON.parse(float))));
  });

  it.skipIf(!haveEngine)(
    'hands the real Gemma-2 config.json to transformers byte for byte (its 30.0 re-serialised is 30, which it refuses)',
    { timeout: 120_000 },
    async () => {
      const text = fs.readFileSync(path.join(fixtures, 'gemma-2-2b.json'), 'utf8');
      const answer = await probeModelConfig(text, { python: choice.python, dataDir: tmp() });
      expect(answer.ok && answer.params).toBe(2_614_341_888); // the Hub's count for google/gemma-2-2b
      // What the probe was handed before: the object written out again by JavaScript.
      const reserialised = await probeModelConfig(JSON.parse(text) as Record<string, unknown>, { python: choice.python, dataDir: tmp() });
      expect(!reserialised.ok && reserialised.message).toMatch(/final_logit_softcapping/);
    },
  );

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
    'answers a Gemma config from the model and caches it; counts a MoE config with its experts',
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
      expect(cached).toEqual([`${await modelConfigHash(JSON.stringify(gemma))}.json`]);
      // The second answer comes from the cache (a broken interpreter would say unavailable).
      expect(await probeModelConfig(gemma, { python: '/nonexistent/python3', dataDir })).toEqual(answer);
      // A Mixture-of-Experts config is counted too: its total and what a token computes.
      const moe = await probeModelConfig(
        JSON.stringify({ ...gemma, model_type: 'mixtral', num_local_experts: 4, num_experts_per_tok: 2 }),
        { python: choice.python, dataDir },
      );
      expect(moe.ok && moe.moe).toMatchObject({ experts: 4, expertsPerToken: 2, blockClass: ['MixtralSparseMoeBlock'] });
    },
  );
});
