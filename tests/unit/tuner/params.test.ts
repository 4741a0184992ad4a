// Parameter counts computed from the architecture vs the published counts (Hugging Face
// safetensors metadata). The published figures are written here too, so a wrong edit of
// models.json fails the test instead of moving the goalposts.
import { describe, expect, it } from 'vitest';
import { catalog, countParams, resolveModel } from '../../../electron/services/tuner';

const PUBLISHED: Record<string, number> = {
  'llama-3.1-8b': 8_030_261_248,
  'llama-3.1-70b': 70_553_706_496,
  'llama-3.2-1b': 1_235_814_400,
  'llama-3.2-3b': 3_212_749_824,
  'llama-2-7b': 6_738_415_616,
  'llama-2-13b': 13_015_864_320,
  'llama-2-70b': 68_976_648_192,
  'qwen2.5-7b': 7_615_616_512,
  'qwen2.5-14b': 14_770_033_664,
  'qwen2.5-32b': 32_763_876_352,
  'qwen2.5-72b': 72_706_203_648,
  'mistral-7b': 7_241_732_096,
  gpt2: 124_439_808,
  'gpt2-medium': 354_823_168,
  'gpt2-large': 774_030_080,
  'gpt2-xl': 1_557_611_200,
};

describe('parameter counts', () => {
  it('has every required preset id', () => {
    const ids = catalog().models.map((m) => m.id);
    for (const id of [...Object.keys(PUBLISHED), 'tiny-llama']) expect(ids).toContain(id);
  });
  for (const [id, published] of Object.entries(PUBLISHED))
    it(`${id} is within 0.5% of the published ${published.toLocaleString('en-US')}`, () => {
      const model = resolveModel(id);
      expect(model.publishedParams).toBe(published);
      expect(model.source).toMatch(/huggingface\.co/);
      const total = countParams(model).total;
      expect(Math.abs(total - published) / published).toBeLessThan(0.005);
    });
  it('tiny-llama is the CPU smoke model: 2 layers, hidden 64, 4 heads, vocab 256', () => {
    const m = resolveModel('tiny-llama');
    expect([m.numLayers, m.hiddenSize, m.numHeads, m.vocabSize]).toEqual([2, 64, 4, 256]);
    expect(countParams(m).total).toBe(164_160);
  });
  it("largest layer is DeepSpeed's ℓ: the embedding for Llama-3.1-70B", () => {
    expect(countParams(resolveModel('llama-3.1-70b')).largestLayer).toBe(128256 * 8192);
  });
});
