// plan/import-hf-config against a real `serve`: a Hugging Face config whose sizes are too large to
// count exactly (over 2^53) is refused as invalid_hf_config naming its field, not a bad_response.
import { describe, expect, it } from 'vitest';
import { WsClient, spawnServe, tmpDir } from './helpers';

describe('a Hugging Face config too large to count exactly names its field', () => {
  it.each([
    ['hidden_size', { hidden_size: 2 ** 54 }, /field 'hidden_size' is too large/],
    ['vocab_size', { vocab_size: 2 ** 53 + 2 }, /field 'vocab_size' is too large/],
    ['intermediate_size', { intermediate_size: 1e300 }, /field 'intermediate_size' is too large/],
    [
      'num_hidden_layers',
      { num_hidden_layers: 2 ** 40, hidden_size: 2 ** 20, num_attention_heads: 1 },
      /field 'num_hidden_layers' is 1,099,511,627,776: at most 1,024 layers are planned/,
    ],
  ])(
    '%s over 2^53 (or a model over 2^53 parameters) → invalid_hf_config naming it, not bad_response',
    { timeout: 60_000 },
    async (field, change, message) => {
      const serve = await spawnServe(tmpDir('os-small-hf-'));
      const c = await WsClient.connect(serve.origin, serve.token);
      try {
        const base = {
          model_type: 'llama',
          hidden_size: 4096,
          num_attention_heads: 32,
          num_hidden_layers: 32,
          intermediate_size: 11008,
          vocab_size: 32000,
        };
        const r = await c.request('plan/import-hf-config', { text: JSON.stringify({ ...base, ...change }) });
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.code).toBe('invalid_hf_config');
          expect(r.error.field).toBe(field);
          expect(r.error.message).toMatch(message);
        }
      } finally {
        c.close();
        await serve.stop();
      }
    },
  );
});
